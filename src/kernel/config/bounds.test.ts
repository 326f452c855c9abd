// Tests of the document bounds (bounds.ts) as every caller meets them, through parseHcl and
// parseConfig: deep and large documents refused with a 400-able error before the parser
// runs, brackets inside strings, comments and heredocs not counted, and a parser that an
// exception went through replaced, so later parses are unaffected (issue 14 item 2).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH } from './bounds.js';
import { HclSyntaxError, parseHcl } from './hcl.js';
import { parseConfig } from './load.js';
import { cfg, ConfigError } from './schema.js';

const VALID = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
const PARSED = { path: [{ 'secret/*': [{ capabilities: ['read'] }] }] };
const blocks = (n: number) => 'path "a" { '.repeat(n) + '}'.repeat(n);

describe('document bounds', () => {
  it('refuses 2,000 to 5,000 nested blocks before parsing, and later parses are unaffected', () => {
    for (const n of [2000, 5000, 2000, 3000, 2000, 4000, 2000, 2500, 2000, 5000]) {
      const err = catchError(() => parseHcl(blocks(n), 'policy "deep"'));
      assert.ok(err instanceof HclSyntaxError);
      // The 33rd `{` is at column 1 + 32 × 11 - 1.
      assert.equal(err.message, `policy "deep":1:${32 * 11 + 10}: nesting deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    }
    for (let i = 0; i < 10; i++) assert.deepEqual(parseHcl(VALID, 'p'), PARSED);
  });

  it('accepts exactly the limit and counts lists and objects alike', () => {
    assert.doesNotThrow(() => parseHcl(blocks(MAX_DOCUMENT_DEPTH), 'p'));
    const lists = (n: number) => `x = ${'['.repeat(n)}1${']'.repeat(n)}`;
    assert.deepEqual(parseHcl(lists(MAX_DOCUMENT_DEPTH), 'p'), { x: JSON.parse(`${'['.repeat(MAX_DOCUMENT_DEPTH)}1${']'.repeat(MAX_DOCUMENT_DEPTH)}`) });
    assert.match(catchError(() => parseHcl(lists(MAX_DOCUMENT_DEPTH + 1), 'p')).message, /^p:1:37: nesting deeper than 32 levels$/);
    const json = (n: number) => `{"x":${'{"a":'.repeat(n - 1)}1${'}'.repeat(n)}`;
    assert.doesNotThrow(() => parseHcl(json(MAX_DOCUMENT_DEPTH), 'p.json'));
    assert.match(catchError(() => parseHcl(json(MAX_DOCUMENT_DEPTH + 1), 'p.json')).message, /nesting deeper than 32 levels$/);
  });

  it('does not count brackets in strings, interpolations, comments or heredocs', () => {
    const deep = '{'.repeat(200) + '['.repeat(200);
    const text = [
      `a = "${deep}"`,
      `b = "\${f("${'['.repeat(200)}")}${deep}"`,
      `c = "\\"${deep}"`,
      `# ${deep}`,
      `// ${deep}`,
      `/* ${deep}\n${deep} */`,
      `d = <<EOT\n${deep}\nEOT\n`,
      `e = <<-EOT\n${deep}\n  EOT\n`,
      VALID,
    ].join('\n');
    const v = parseHcl(text, 'p') as Record<string, unknown>;
    assert.equal(v.a, deep);
    assert.equal(v.d, `${deep}\n`);
    assert.deepEqual(v.path, PARSED.path);
  });

  it('reads strings of a JSON document the way JSON does (`${` does not hide a quote)', () => {
    const text = `{"a": "\${", "b": ${'['.repeat(100)}${']'.repeat(100)}}`;
    assert.match(catchError(() => parseHcl(text, 'p.json')).message, /nesting deeper than 32 levels$/);
    // In HCL, `${…}` hides quotes: the brackets between them are inside the string.
    const inner = `\${ "${'['.repeat(100)}" }`;
    assert.deepEqual(parseHcl(`a = "${inner}"`, 'p'), { a: inner });
  });

  it('refuses a document over 1 MiB, counted in UTF-8 bytes', () => {
    const big = `a = "${'é'.repeat(MAX_DOCUMENT_BYTES / 2)}"`;
    assert.equal(catchError(() => parseHcl(big, 'big.hcl')).message, `big.hcl: the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    assert.deepEqual(parseHcl(VALID, 'p'), PARSED);
  });

  it('bounds JSON config documents too, as a config error with line and column', () => {
    const keys = { x: cfg.list('string') };
    const err = catchError(() => parseConfig(`{\n  "x": ${'['.repeat(3000)}${']'.repeat(3000)}\n}`, 'agent.json', keys));
    assert.ok(err instanceof ConfigError);
    assert.equal(err.message, 'agent.json:2: syntax error at column 39: nesting deeper than 32 levels');
    const hcl = catchError(() => parseConfig(blocks(3000), 'agent.hcl', keys));
    assert.ok(hcl instanceof ConfigError);
    assert.equal(hcl.message, 'agent.hcl:1: syntax error at column 362: nesting deeper than 32 levels');
  });

  it('replaces the parser after an exception went through it, so later parses are unaffected', () => {
    // With a 120 KiB stack, 32 nested blocks overflow inside the parser itself, as a
    // document the scan misjudged would at the default stack.
    const child = `
      import { createRequire } from 'node:module';
      import { parseHcl } from ${JSON.stringify(join(import.meta.dirname, 'hcl.ts'))};
      const require = createRequire(${JSON.stringify(join(import.meta.dirname, 'hcl.ts'))});
      const loaded = () => require.cache[require.resolve('js-hcl-parser')];
      const valid = ${JSON.stringify(VALID)};
      const out = { parsed: [] };
      parseHcl(valid, 'p');
      const first = loaded();
      try { parseHcl('path "a" { '.repeat(32) + '}'.repeat(32), 'p'); } catch (err) { out.deep = err.message; }
      for (let i = 0; i < 5; i++) out.parsed.push(JSON.stringify(parseHcl(valid, 'p')));
      out.replaced = loaded() !== undefined && loaded() !== first;
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['--stack-size=120', '--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      deep: 'p: the document is nested too deeply to parse',
      parsed: Array(5).fill(JSON.stringify(PARSED)),
      replaced: true,
    });
  });
});

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected an error');
}
