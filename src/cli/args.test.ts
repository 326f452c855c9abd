import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError, collectList, collectPair, endFlagsAtFirstArg, normalizeArgs, parseBool, parseKeyValues, parseVersions, splitMountPath } from './args.js';
import { oneLine } from './main.js';

describe('normalizeArgs', () => {
  const kinds = { booleanFlags: new Set(['cas-required']), valueFlags: new Set(['field', 'mount']) };

  it('turns single-dash long flags into double-dash ones', () => {
    assert.deepEqual(normalizeArgs(['kv', 'get', '-mount=secret', '-version', '2', 'foo']), ['kv', 'get', '--mount=secret', '--version', '2', 'foo']);
  });

  it('leaves double-dash flags, operands and values with dashes inside alone', () => {
    assert.deepEqual(normalizeArgs(['--format=json', 'a=-b', 'secret/x-y']), ['--format=json', 'a=-b', 'secret/x-y']);
  });

  it('keeps "-", negative numbers and -h as they are', () => {
    assert.deepEqual(normalizeArgs(['kv', 'put', 'secret/a', '-', '-1', '-2.5', '-h']), ['kv', 'put', 'secret/a', '-', '-1', '-2.5', '-h']);
  });

  it('stops at "--"', () => {
    assert.deepEqual(normalizeArgs(['-mount=a', '--', '-weird', '-x=1']), ['--mount=a', '--', '-weird', '-x=1']);
  });

  it('gives bare boolean flags an explicit value so they never take the next argument', () => {
    assert.deepEqual(normalizeArgs(['-cas-required', 'secret/a'], kinds), ['--cas-required=true', 'secret/a']);
    assert.deepEqual(normalizeArgs(['-cas-required=false', 'secret/a'], kinds), ['--cas-required=false', 'secret/a']);
  });

  it('does not rewrite the value after a value flag', () => {
    assert.deepEqual(normalizeArgs(['-field', '-odd', '-mount', 'm', 'p'], kinds), ['--field', '-odd', '--mount', 'm', 'p']);
  });

  it('maps -help to --help', () => {
    assert.deepEqual(normalizeArgs(['kv', '-help']), ['kv', '--help']);
  });
});

describe('endFlagsAtFirstArg', () => {
  const paths = [['mesh', 'lock']];
  const kinds = { valueFlags: new Set(['name', 'n']), booleanFlags: new Set(['verbose']) };

  it("puts -- before the first argument after the command's flags, as Go's flag parsing stops there", () => {
    assert.deepEqual(endFlagsAtFirstArg(['mesh', 'lock', '-verbose', '-n=2', 'p', 'sh', '-c', 'x'], paths, kinds), [
      'mesh',
      'lock',
      '-verbose',
      '-n=2',
      '--',
      'p',
      'sh',
      '-c',
      'x',
    ]);
    assert.deepEqual(
      endFlagsAtFirstArg(['mesh', 'lock', '-name', 'job', 'p', 'ls', '-l'], paths, kinds),
      ['mesh', 'lock', '-name', 'job', '--', 'p', 'ls', '-l'],
      "a value flag's value is not the first argument",
    );
    assert.deepEqual(
      normalizeArgs(endFlagsAtFirstArg(['mesh', 'lock', 'p', 'ls', '-l'], paths, kinds), kinds),
      ['mesh', 'lock', '--', 'p', 'ls', '-l'],
      "the child's flags are left alone",
    );
  });

  it('leaves other commands, and an explicit --, as they are', () => {
    assert.deepEqual(endFlagsAtFirstArg(['mesh', 'kv', 'put', 'k', '-flags=1'], paths, kinds), ['mesh', 'kv', 'put', 'k', '-flags=1']);
    assert.deepEqual(endFlagsAtFirstArg(['mesh', 'lock', '--', 'p', 'x'], paths, kinds), ['mesh', 'lock', '--', 'p', 'x']);
  });
});

describe('splitMountPath', () => {
  it('takes the first segment as the mount', () => {
    assert.deepEqual(splitMountPath('secret/app/db', undefined), { mount: 'secret', path: 'app/db' });
    assert.deepEqual(splitMountPath('/secret/app/', undefined), { mount: 'secret', path: 'app' });
  });

  it('uses -mount when given, the argument then being the path', () => {
    assert.deepEqual(splitMountPath('app/db', 'secret'), { mount: 'secret', path: 'app/db' });
    assert.deepEqual(splitMountPath('db', 'team/kv/'), { mount: 'team/kv', path: 'db' });
  });

  it('rejects a missing path unless listing', () => {
    assert.throws(() => splitMountPath('secret', undefined), UsageError);
    assert.throws(() => splitMountPath('', undefined), UsageError);
    assert.deepEqual(splitMountPath('secret/', undefined, true), { mount: 'secret', path: '' });
  });
});

describe('data and flag values', () => {
  it('parses k=v, k=@file and @file.json', () => {
    const files: Record<string, string> = { 'pw.txt': 's3cr=t', 'more.json': '{"n":1}' };
    const read = (p: string) => files[p];
    assert.deepEqual(parseKeyValues(['a=b', 'c=d=e', 'pw=@pw.txt', '@more.json', 'empty='], read), {
      a: 'b',
      c: 'd=e',
      pw: 's3cr=t',
      n: 1,
      empty: '',
    });
  });

  it('rejects pairs without a key', () => {
    assert.throws(() => parseKeyValues(['novalue'], () => ''), /format must be key=value/);
    assert.throws(() => parseKeyValues(['=v'], () => ''), UsageError);
  });

  it('parses version lists, Go booleans and repeatable flags', () => {
    assert.deepEqual(parseVersions('1, 2,3'), [1, 2, 3]);
    assert.throws(() => parseVersions('1,x'), UsageError);
    assert.throws(() => parseVersions(''), UsageError);
    assert.equal(parseBool('T', 'x'), true);
    assert.equal(parseBool('0', 'x'), false);
    assert.throws(() => parseBool('yes', 'x'), UsageError);
    assert.deepEqual(collectPair('b=2=3', collectPair('a=1', undefined)), { a: '1', b: '2=3' });
    assert.deepEqual(collectList('c', collectList('a,b', undefined)), ['a', 'b', 'c']);
  });
});

describe('oneLine', () => {
  it('unwraps Go multierror text', () => {
    assert.equal(oneLine('1 error occurred:\n\t* permission denied\n\n'), 'permission denied');
    assert.equal(oneLine('2 errors occurred:\n\t* a\n\t* b\n\n'), 'a; b');
    assert.equal(oneLine('plain\nmessage'), 'plain message');
  });
});
