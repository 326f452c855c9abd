/** State keys: their text form, their key file, and their fingerprint. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeStateKey, newStateKey, readStateKeyFile, stateKeyFingerprint } from './state-key.js';

describe('state keys', () => {
  it('decodes base64 of exactly 32 bytes (either alphabet, white space around) and refuses anything else', () => {
    const { key, text } = newStateKey();
    assert.match(text, /^[A-Za-z0-9+/]{43}=\n$/);
    assert.deepEqual(decodeStateKey(`  ${text}`), key);
    assert.deepEqual(decodeStateKey(key.toString('base64url')), key);
    for (const bad of ['', 'c2hvcnQ=', key.toString('hex'), `${text.trim()}AAAA`, 'not base64 at all!']) {
      assert.throws(() => decodeStateKey(bad), /expected a base64 32-byte key/, bad);
    }
  });

  it('reads a key file, undefined when there is none, and names a file that holds no key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-state-key-'));
    try {
      const { key, text } = newStateKey();
      writeFileSync(join(dir, 'a.key'), text);
      assert.deepEqual(readStateKeyFile(join(dir, 'a.key')), key);
      assert.equal(readStateKeyFile(join(dir, 'missing.key')), undefined);
      writeFileSync(join(dir, 'bad.key'), 'c2hvcnQ=\n');
      assert.throws(() => readStateKeyFile(join(dir, 'bad.key')), /bad\.key: expected a base64 32-byte key/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fingerprints: equal for equal keys, different for different keys, and not the key', () => {
    const a = newStateKey().key;
    const print = stateKeyFingerprint(a);
    assert.match(print, /^hmac-sha256:[0-9a-f]{32}$/);
    assert.equal(stateKeyFingerprint(Buffer.from(a)), print);
    assert.notEqual(stateKeyFingerprint(newStateKey().key), print);
    assert.ok(!print.includes(a.toString('hex').slice(0, 8)));
  });
});
