/** writeFileDurably: the whole file or none, mode 0600, an existing file kept when exclusive. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeFileDurably } from './durable-file.js';

describe('writeFileDurably', () => {
  it('writes the file with mode 0600, replaces it, keeps an existing one when exclusive, and leaves no temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-durable-'));
    try {
      const file = join(dir, 'k');
      assert.equal(writeFileDurably(file, 'one\n'), true);
      assert.equal(readFileSync(file, 'utf8'), 'one\n');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(writeFileDurably(file, Buffer.from('two\n')), true);
      assert.equal(readFileSync(file, 'utf8'), 'two\n');
      assert.equal(writeFileDurably(file, 'three\n', { exclusive: true }), false, 'an existing file wins');
      assert.equal(readFileSync(file, 'utf8'), 'two\n');
      assert.equal(writeFileDurably(join(dir, 'new'), 'x', { exclusive: true, mode: 0o640 }), true);
      assert.equal(statSync(join(dir, 'new')).mode & 0o777, 0o640);
      assert.deepEqual(readdirSync(dir).sort(), ['k', 'new']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws the file system error and leaves nothing behind when the directory is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-durable-'));
    try {
      writeFileSync(join(dir, 'file'), '');
      assert.throws(() => writeFileDurably(join(dir, 'nope', 'k'), 'x'), /ENOENT/);
      assert.deepEqual(readdirSync(dir), ['file']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
