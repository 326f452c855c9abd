import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NONCE_BYTES, randomNonce } from './random-nonce.js';

describe('randomNonce', () => {
  it('hands out distinct 12-byte nonces across pool refills, each unchanged by the later ones', () => {
    const first = randomNonce();
    const kept = Buffer.from(first);
    const seen = new Set<string>([first.toString('hex')]);
    // Three pools' worth: the pool is refilled twice on the way.
    for (let i = 0; i < 3 * 4096; i++) {
      const n = randomNonce();
      assert.equal(n.length, NONCE_BYTES);
      seen.add(n.toString('hex'));
    }
    assert.equal(seen.size, 3 * 4096 + 1, 'no nonce handed out twice');
    assert.deepEqual(first, kept, 'a refill leaves the nonces handed out before as they were');
  });
});
