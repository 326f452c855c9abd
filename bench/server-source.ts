/**
 * Which code the benchmark's server processes run: the compiled `dist/` (what `cairn`
 * ships; the default when it is up to date) or `src/` through tsx. tsx's transform is
 * not what users run, and costs the servers measurable CPU per request (issue 15:
 * ~15 % more for a KV read in-process), so figures from `src/` overstate Cairn's cost.
 *
 * `BENCH_SERVER_SOURCE=dist|src` forces one; by default `dist` when `dist/.built` (written
 * by scripts/ensure-built.mjs, i.e. `npm run bench`) is newer than every file under
 * `src/`, else `src` (a tree being edited), and the run says so in its header.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository's root, also when this runs compiled from the tests' mirror .test-build/
// (scripts/test-build.mjs), whose package.json is a symlink to the root's.
const ROOT = dirname(realpathSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json')));

/** Latest modification time (ms) of any file under `dir`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** `dist` or `src`, as described in the module comment, for the run's `env`. Throws on another `BENCH_SERVER_SOURCE`. */
export function serverSource(env: NodeJS.ProcessEnv): 'dist' | 'src' {
  const forced = env.BENCH_SERVER_SOURCE;
  if (forced === 'dist' || forced === 'src') return forced;
  if (forced) throw new Error(`BENCH_SERVER_SOURCE must be "dist" or "src", not "${forced}"`);
  const stamp = join(ROOT, 'dist', '.built');
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newest(join(ROOT, 'src')) ? 'dist' : 'src';
}

/** Node flags that make a server process load Cairn from `source`. */
export function serverExecArgv(source: 'dist' | 'src'): string[] {
  return ['--import', 'tsx', ...(source === 'dist' ? ['--import', join(ROOT, 'bench', 'use-dist.mjs')] : [])];
}

/** One line for the run's header. */
export function describeServerSource(source: 'dist' | 'src'): string {
  return source === 'dist'
    ? 'servers run the compiled dist/ (as `cairn` does)'
    : 'servers run src/ through tsx (dist/ is missing or older than src/: run `npm run bench` or `npx tsc -p tsconfig.json && touch dist/.built`, or set BENCH_SERVER_SOURCE=dist)';
}
