// Tests of parseHcl: HCL1 output shapes, JSON input, error messages with file:line:col,
// and the library's global side effects undone.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HclSyntaxError, parseHcl } from './hcl.js';

describe('parseHcl', () => {
  it('keeps repeated labelled blocks as lists', () => {
    const v = parseHcl('listener "tcp" { address = "a:1" }\nlistener "tcp" {\n  address = "b:2"\n  tls_disable = true\n}\n', 'x.hcl');
    assert.deepEqual(v, { listener: [{ tcp: [{ address: 'a:1' }] }, { tcp: [{ address: 'b:2', tls_disable: true }] }] });
  });

  it('parses attributes, numbers, lists, nested objects and comments', () => {
    const v = parseHcl('# comment\nname = "web"\nsize = 100\ncaps = ["read", "list"]\nm = { k = "v" }\nsize = 5 // last wins\n', 'x.hcl');
    assert.deepEqual(v, { name: 'web', size: 5, caps: ['read', 'list'], m: [{ k: 'v' }] });
  });

  it('parses heredocs', () => {
    assert.deepEqual(parseHcl('t = <<EOT\nline 1\nline 2\nEOT\n', 'x.hcl'), { t: 'line 1\nline 2\n' });
  });

  it('accepts JSON documents', () => {
    assert.deepEqual(parseHcl('{"path":{"p":{"capabilities":["read"]}}}', 'p.json'), { path: [{ p: [{ capabilities: ['read'] }] }] });
  });

  it('parses an empty document to an empty object', () => {
    assert.deepEqual(parseHcl('', 'empty.hcl'), {});
  });

  it('names file, line and column of a syntax error', () => {
    const err = catchError(() => parseHcl('path "x" {\n  capabilities = ["read"]\n\n', 'conf/a.hcl'));
    assert.ok(err instanceof HclSyntaxError);
    // HCL1 puts EOF one column past the start of the last (empty) line.
    assert.equal(err.message, 'conf/a.hcl:4:2: object expected closing RBRACE got: EOF');
    assert.equal(err.file, 'conf/a.hcl');
    assert.equal(err.line, 4);
    assert.equal(err.column, 2);
    assert.equal(err.reason, 'object expected closing RBRACE got: EOF');
  });

  it('names line and column of a JSON syntax error', () => {
    const err = catchError(() => parseHcl('{bad json', 'b.json'));
    assert.ok(err instanceof HclSyntaxError);
    assert.equal(err.message, 'b.json:1:4: illegal char');
  });

  it('reports a key without value or block', () => {
    const err = catchError(() => parseHcl('foo bar', 'c.hcl'));
    assert.ok(err instanceof HclSyntaxError);
    assert.match(err.message, /^c\.hcl:1:9: key 'foo bar' expected start of object/);
  });

  it('leaves no global require and keeps Error.stackTraceLimit', () => {
    const limit = Error.stackTraceLimit;
    parseHcl('a = 1', 'x.hcl');
    assert.equal(Object.prototype.hasOwnProperty.call(globalThis, 'require'), false);
    assert.equal(Error.stackTraceLimit, limit);
    assert.notEqual(Error.stackTraceLimit, Infinity);
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
