import { defineConfig } from "vitest/config";

// The server serves dist/ at "/" (server/http.py); relative asset URLs keep the build
// independent of the path it is served from.
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, target: "es2022" },
  test: { include: ["test/**/*.test.ts"], environment: "node" },
});
