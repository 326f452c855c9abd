// Compiles the TypeScript that tests run (src/, test/, bench/) with swc into .test-build/, a
// mirror of the repository that `npm test` runs the test files from (scripts/test.mjs). Loading
// compiled JavaScript instead of going through tsx's loader (its hooks run off-thread in Node
// 20, a cost paid on every module of every test file's process) makes each file's start about
// 1 s of CPU cheaper.
//
// The mirror, .test-build/ (gitignored):
// - each src|test|bench/X.ts compiles to X.js (only when the source or this script is newer than
//   it), with its source map beside it (X.js.map, pointing at the .ts file): scripts/test-run.mjs
//   maps the stacks a run reports (scripts/source-stacks.mjs), and a file run by hand under
//   `--enable-source-maps` names the .ts lines too;
// - every other file there (X.ts itself, testdata, .proto, .py, .json, sqlite-writer.js…) is a
//   symlink to the original, since tests find files relative to `import.meta.dirname`; a child
//   started on a mirrored .ts file (`node --import tsx …/dev-server.ts`) runs the original, as
//   node follows the symlink;
// - what tests reach with `..` from there (bin/, dist/, docs/, scripts/, README.md, …) is a
//   symlink at the mirror's root (ROOT_LINKS);
// - files whose source is gone are removed, so a deleted module cannot keep an import working.
// swc strips types as tsx's esbuild does (per file: no const enum inlining, type-only imports
// elided); the code base uses no decorators. Class fields follow tsconfig.json's target
// ES2022 (define semantics).
//
// `node scripts/test-build.mjs` builds and prints what it did; scripts/test.mjs imports build().
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The mirror's directory, relative to the repository's root. */
const MIRROR = '.test-build';
/** The compiled trees. */
const TREES = ['src', 'test', 'bench'];
/**
 * What tests (and src/, e.g. dist/ui) reach at the repository's root from a compiled file, as
 * `join(import.meta.dirname, '..', …)`. A test that runs a tool on the repository or writes
 * under it finds the real root instead (test/repo-root.ts, through package.json's link).
 */
const ROOT_LINKS = ['bin', 'dist', 'docs', 'scripts', 'README.md', 'package.json'];

const SELF = fileURLToPath(import.meta.url);

/** @returns {string} the mirror's path of source file `file` (relative to the root): X.ts → X.js */
export function compiledPath(file) {
  return join(MIRROR, file.replace(/\.ts$/, '.js'));
}

/**
 * @returns {string} the source file of a path into the mirror (relative or absolute):
 * `.test-build/test/x.test.js` → `test/x.test.ts`; any other path as it is
 */
export function sourcePath(file) {
  const at = file.startsWith(MIRROR + '/') ? 0 : file.indexOf('/' + MIRROR + '/') + 1;
  if (at === 0 && !file.startsWith(MIRROR + '/')) return file;
  const original = file.slice(0, at) + file.slice(at + MIRROR.length + 1);
  const ts = original.replace(/\.js$/, '.ts');
  return ts !== original && existsSync(ts) ? ts : original;
}

/** Makes `at` a relative symlink to `target` (both relative to the root), unless it already is one. @returns {boolean} whether it made one */
function link(target, at) {
  const to = relative(dirname(at), target);
  try {
    if (readlinkSync(at) === to) return false;
    unlinkSync(at);
  } catch {
    // not there yet (or not a link: a directory left by an older layout)
    rmSync(at, { recursive: true, force: true });
  }
  try {
    symlinkSync(to, at);
  } catch (err) {
    // Another `npm test` in this checkout, building at the same moment, made it first.
    if (err.code !== 'EEXIST') throw err;
  }
  return true;
}

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
};

/** Lists the files of a source tree, relative to the root. */
function walk(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** Removes what is in the mirror's `dir` but not in `wanted` (mirror paths). */
function prune(dir, wanted) {
  let removed = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      removed += prune(p, wanted);
      if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
    } else if (!wanted.has(p)) {
      rmSync(p, { force: true });
      removed++;
    }
  }
  return removed;
}

/** Writes `text` to `path` aside, then renames it: a test file of another run loading it never reads half a file. */
function writeWhole(path, text) {
  const part = `${path}.${process.pid}.part`;
  writeFileSync(part, text);
  renameSync(part, path);
}

/** Compiles one .ts file to `out`, with its source map, naming the original, in `out`.map. */
async function compile(file, out) {
  // Loaded here: the test reporters import this module for sourcePath() alone.
  const { transformFile } = await import('@swc/core');
  const { code, map } = await transformFile(file, {
    swcrc: false,
    configFile: false,
    sourceMaps: true,
    sourceFileName: relative(dirname(out), file),
    isModule: true,
    jsc: {
      parser: { syntax: 'typescript' },
      target: 'es2022',
      keepClassNames: true,
      transform: { useDefineForClassFields: true },
    },
  });
  // The map first: a compiled file is up to date (see build()) only once both are written.
  writeWhole(`${out}.map`, map);
  writeWhole(out, `${code}\n//# sourceMappingURL=${basename(out)}.map\n`);
}

/**
 * Brings .test-build/ up to date with src/, test/ and bench/ (run from the repository's root).
 * @returns {Promise<{ compiled: number, linked: number, removed: number }>} how many files it compiled, linked and removed
 */
export async function build() {
  const since = mtime(SELF);
  const wanted = new Set();
  const jobs = [];
  let linked = 0;
  mkdirSync(MIRROR, { recursive: true });
  for (const name of ROOT_LINKS) if (existsSync(name) && link(name, join(MIRROR, name))) linked++;
  for (const tree of TREES) {
    for (const file of walk(tree, [])) {
      const mirrored = join(MIRROR, file);
      mkdirSync(dirname(mirrored), { recursive: true });
      if (link(file, mirrored)) linked++;
      wanted.add(mirrored);
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const out = compiledPath(file);
      wanted.add(out);
      wanted.add(`${out}.map`);
      if (mtime(out) <= Math.max(mtime(file), since)) jobs.push(compile(file, out));
    }
  }
  await Promise.all(jobs);
  let removed = 0;
  for (const tree of TREES) if (existsSync(join(MIRROR, tree))) removed += prune(join(MIRROR, tree), wanted);
  return { compiled: jobs.length, linked, removed };
}

if (process.argv[1] === SELF) {
  const t = Date.now();
  const r = await build();
  console.error(`${MIRROR}: ${r.compiled} compiled, ${r.linked} linked, ${r.removed} removed (${Date.now() - t} ms)`);
}
