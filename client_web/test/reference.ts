/** Access to the Python reference implementation (test/reference.py) from the TypeScript tests. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, "..", "..");

function python(): string {
  const p = process.env.BILLAR_PYTHON ?? resolve(ROOT, ".venv", "bin", "python");
  if (!existsSync(p)) throw new Error(`the project's Python (${p}) is missing: run make build first, or set BILLAR_PYTHON`);
  return p;
}

export function reference(mode: string, input?: string): any {
  const out = execFileSync(python(), [resolve(HERE, "reference.py"), mode], { input, cwd: ROOT, maxBuffer: 64 << 20 });
  return JSON.parse(out.toString("utf8"));
}

export function hexToBytes(hex: string): Uint8Array {
  const b = new Uint8Array(hex.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return b;
}

export function bytesToHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
