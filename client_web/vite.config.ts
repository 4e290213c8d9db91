import { defineConfig } from "vitest/config";

// The server serves dist/ at "/" (server/http.py); relative asset URLs keep the build
// independent of the path it is served from. `npm run dev` serves the sources with hot reload
// and forwards the WebSocket and the match records to a server on BILLAR_URL (default :8765).
const backend = process.env.BILLAR_URL ?? "http://127.0.0.1:8765";

export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, target: "es2022" },
  server: {
    proxy: {
      "/ws": { target: backend.replace(/^http/, "ws"), ws: true },
      "/records": backend,
    },
  },
  test: { include: ["test/**/*.test.ts"], environment: "node" },
});
