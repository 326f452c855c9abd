/**
 * The test runner's stack mapping (scripts/source-stacks.mjs): a real file compiled by swc into
 * a `.test-build/` directory, with its map beside it as scripts/test-build.mjs writes them,
 * throws; its stack, a failed test's location and a file's stderr then name the TypeScript
 * source's line, and a position with no map stays as it was.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { transformSync } from '@swc/core';
import { sourceStacks, withSourceStacks } from '../scripts/source-stacks.mjs';

const root = mkdtempSync(join(tmpdir(), 'cairn-stacks-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** `text` as a literal in a RegExp. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The source: types swc strips, and the throw on line 4. */
const SOURCE = ['type N = number;', 'export function boom(): never {', '  const n: N = 1;', '  throw new Error(`boom ${n}`);', '}', ''].join('\n');

/** Compiles SOURCE to `<root>/.test-build/boom.js` with `boom.js.map`, imports it and returns what `boom()` throws. */
async function thrown(): Promise<{ err: Error; compiled: string; source: string }> {
  const source = join(root, 'boom.ts');
  const compiled = join(root, '.test-build', 'boom.js');
  mkdirSync(join(root, '.test-build'), { recursive: true });
  writeFileSync(source, SOURCE);
  const { code, map } = transformSync(SOURCE, {
    filename: 'boom.ts',
    sourceMaps: true,
    sourceFileName: '../boom.ts',
    isModule: true,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  });
  writeFileSync(`${compiled}.map`, map!);
  writeFileSync(compiled, `${code}\n//# sourceMappingURL=boom.js.map\n`);
  const { boom } = (await import(pathToFileURL(compiled).href)) as { boom: () => never };
  try {
    boom();
  } catch (err) {
    return { err: err as Error, compiled, source: relative(process.cwd(), source) };
  }
  assert.fail('boom() returned');
}

it("maps a compiled file's stack frames, a failed test's location and stderr to the source; leaves unmapped ones", async () => {
  const { err, compiled, source } = await thrown();
  const frame = new RegExp(`${escape(compiled)}:(\\d+):(\\d+)`).exec(err.stack!);
  assert.ok(frame, `the stack names the compiled file: ${err.stack}`);
  assert.match(sourceStacks(err.stack!), new RegExp(`at boom \\(${escape(source)}:4:\\d+\\)`));
  const other = 'at x (/srv/.test-build/none.js:3:7)';
  assert.equal(sourceStacks(other), other, 'no map beside it: left as it was');

  const transform = withSourceStacks();
  const events: { type: string; data: Record<string, unknown> }[] = [];
  transform.on('data', (e: { type: string; data: Record<string, unknown> }) => events.push(e));
  const wrapper = Object.assign(new Error('test failed'), { cause: err });
  transform.write({ type: 'test:fail', data: { file: compiled, line: Number(frame[1]), column: Number(frame[2]), details: { error: wrapper } } });
  transform.write({ type: 'test:stderr', data: { message: `Error: boom\n    at ${compiled}:${frame[1]}:${frame[2]}\n` } });
  transform.end();
  await new Promise((r) => transform.once('end', r));
  const [failed, stderr] = events;
  assert.equal(failed!.data.file, source);
  assert.equal(failed!.data.line, 4);
  assert.ok(!String(((failed!.data.details as { error: Error }).error.cause as Error).stack).includes('.test-build'), 'the cause is mapped too');
  assert.match(String(stderr!.data.message), new RegExp(`${escape(source)}:4:`));
});
