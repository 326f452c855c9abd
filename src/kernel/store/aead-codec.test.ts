/** The AES-256-GCM state codec and its key file. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { aesGcmCodec, loadOrCreateKeyFile } from './aead-codec.js';

describe('aesGcmCodec', () => {
  it('round-trips, never repeats a ciphertext, and refuses another key or a flipped bit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-key-'));
    try {
      const key = loadOrCreateKeyFile(join(dir, 'state.key'));
      assert.equal(statSync(join(dir, 'state.key')).mode & 0o777, 0o600);
      assert.deepEqual(loadOrCreateKeyFile(join(dir, 'state.key')), key, 'the same key on the next start');
      const codec = aesGcmCodec(key);
      const plain = Buffer.from('{"SecretID":"s3cr3t"}');
      const a = codec.encode(plain);
      assert.notDeepEqual(a, codec.encode(plain));
      assert.ok(!Buffer.from(a).includes(Buffer.from('s3cr3t')));
      assert.deepEqual(Buffer.from(codec.decode(a)), plain);
      assert.throws(() => aesGcmCodec(Buffer.alloc(32, 1)).decode(a), /wrong state key or corrupted value/);
      const flipped = Buffer.from(a);
      flipped[20] ^= 1;
      assert.throws(() => codec.decode(flipped), /wrong state key or corrupted value/);
      assert.throws(() => codec.decode(plain), /not an encrypted state value/);
      writeFileSync(join(dir, 'bad.key'), 'c2hvcnQ=\n');
      assert.throws(() => loadOrCreateKeyFile(join(dir, 'bad.key')), /bad\.key: expected a base64 32-byte key/);
      assert.match(readFileSync(join(dir, 'state.key'), 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
