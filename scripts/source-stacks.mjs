// Points the stacks of a test run at the TypeScript sources. The test files run compiled
// (.test-build/, scripts/test-build.mjs) without `--enable-source-maps`: under that flag node
// decodes and indexes the source map of every module each test file's process loads, 3–5 % of
// a test file's CPU (BENCHMARKS.md, "Issue 30, third part"), paid by every file, failing or
// not. The maps are read here instead, for the few stacks a run reports.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { Transform } from 'node:stream';

/** A compiled file's position in a stack: `file:///…/.test-build/x.js:12:5` or the same path without `file://`. */
const FRAME = /(?:file:\/\/)?(\/[^\s()'"]*?\/\.test-build\/[^\s()'":]+\.js):(\d+):(\d+)/g;

/** Each compiled file's map, or null when it has none (a file read once per run). */
const maps = new Map();

/** @returns {SourceMap | null} the source map written beside `file` (X.js.map) */
function mapOf(file) {
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(file, null);
    }
  }
  return maps.get(file);
}

/**
 * @param {string} file a compiled file's absolute path
 * @param {number} line 1-based, as in stacks
 * @param {number} column 1-based
 * @returns {{ file: string, line: number, column: number } | undefined} the source's position
 * (its path relative to the working directory), or nothing when the file has no map
 */
function sourcePosition(file, line, column) {
  // SourceMap positions are 0-based.
  const entry = mapOf(file)?.findEntry(line - 1, column - 1);
  if (!entry?.originalSource) return undefined;
  const source = relative(process.cwd(), resolve(dirname(file), entry.originalSource));
  return { file: source, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

/**
 * @param {string} text any text holding stack frames (an error's stack, a test file's stderr)
 * @returns {string} the text with each position in a compiled file replaced by its source's
 * (`test/x.test.ts:14:7`); a position without a map stays
 */
export function sourceStacks(text) {
  return text.replace(FRAME, (whole, file, line, column) => {
    const at = sourcePosition(file, Number(line), Number(column));
    return at ? `${at.file}:${at.line}:${at.column}` : whole;
  });
}

/** Maps an error's stack and its causes', in place (a failed test's error wraps the thrown one as `cause`). */
function mapError(err, depth = 0) {
  if (!err || typeof err !== 'object' || depth > 8) return;
  if (typeof err.stack === 'string') err.stack = sourceStacks(err.stack);
  mapError(err.cause, depth + 1);
}

/**
 * @returns {Transform} an object stream of node:test run() events, passed on with the stacks of
 * failed tests and the test files' own stdout and stderr pointing at the sources
 */
export function withSourceStacks() {
  return new Transform({
    objectMode: true,
    transform(event, _encoding, done) {
      if (event.type === 'test:fail') {
        mapError(event.data.details?.error);
        // The failed test's own position (TAP's `location`).
        const { file, line, column } = event.data;
        const at = typeof file === 'string' && line ? sourcePosition(file, line, column ?? 1) : undefined;
        if (at) Object.assign(event.data, at);
      } else if ((event.type === 'test:stderr' || event.type === 'test:stdout') && typeof event.data.message === 'string') {
        event.data.message = sourceStacks(event.data.message);
      }
      done(null, event);
    },
  });
}
