/** The AES-256-GCM state codec. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { aesGcmCodec } from './aead-codec.js';

describe('aesGcmCodec', () => {
  it('round-trips, never repeats a ciphertext, and refuses another key or a flipped bit', () => {
    const codec = aesGcmCodec(randomBytes(32));
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
    assert.throws(() => aesGcmCodec(Buffer.alloc(16)), /state key must be 32 bytes, got 16/);
  });
});
