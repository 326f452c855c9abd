// Module resolve hook for the benchmark's server processes (bench/server-source.ts): an
// import that resolves into the repository's src/ is served from the compiled dist/
// instead, so the servers under load run the code `cairn` ships (tsc's output) rather
// than tsx's on-the-fly transform of src/ (which, for one, wraps named closures in a
// `__name` call). bench/ files themselves still load through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SRC = new URL('../src/', import.meta.url).href;
const DIST = new URL('../dist/', import.meta.url).href;

/** Node's `resolve` hook: src/X.ts (as tsx resolves it) → dist/X.js when that file exists. */
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (!r.url.startsWith(SRC)) return r;
  const compiled = DIST + r.url.slice(SRC.length).replace(/\.ts$/, '.js');
  return existsSync(fileURLToPath(compiled)) ? { ...r, url: compiled, format: 'module' } : r;
}
