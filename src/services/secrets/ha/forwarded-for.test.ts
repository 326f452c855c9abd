import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { signForwardedFor, verifiedForwardedFor } from './forwarded-for.js';

describe('signed forwarded-for', () => {
  const key = randomBytes(32);
  const now = 1_800_000_000_000;

  it('gives back the address signed with the key, for the method, within a minute', () => {
    for (const address of ['127.0.0.2', '::ffff:10.1.2.3', '2001:db8::1']) {
      const h = signForwardedFor(key, { address }, 'POST', now);
      assert.deepEqual(verifiedForwardedFor(key, h, 'POST', now), { address });
      assert.deepEqual(verifiedForwardedFor(key, h, 'POST', now + 59_000), { address });
      assert.deepEqual(verifiedForwardedFor(key, h, 'POST', now - 59_000), { address }, 'a clock a little behind');
    }
  });

  it('carries the client certificate chain signed along, and whether the client used TLS', () => {
    const certs = [Buffer.from([0x30, 0x82, 1, 2]), Buffer.from('intermediate')];
    for (const clientCertificates of [certs, [], undefined]) {
      const h = signForwardedFor(key, { address: '10.0.0.1', clientCertificates }, 'PUT', now);
      assert.deepEqual(
        verifiedForwardedFor(key, h, 'PUT', now),
        clientCertificates === undefined ? { address: '10.0.0.1' } : { address: '10.0.0.1', clientCertificates },
      );
    }
  });

  it('ignores anything else', () => {
    const h = signForwardedFor(key, { address: '127.0.0.2' }, 'POST', now);
    const [address, at, mac] = h.split(' ');
    const withChain = signForwardedFor(key, { address: '127.0.0.2', clientCertificates: [Buffer.from('leaf')] }, 'POST', now);
    const chain = withChain.split(' ')[3];
    for (const [why, header, k, method, at2] of [
      ['another key', h, randomBytes(32), 'POST', now],
      ['another method', h, key, 'GET', now],
      ['too old', h, key, 'POST', now + 61_000],
      ['no key (sealed)', h, undefined, 'POST', now],
      ['no header', undefined, key, 'POST', now],
      ['another address', `127.0.0.3 ${at} ${mac}`, key, 'POST', now],
      ['another time', `${address} ${Number(at) + 1} ${mac}`, key, 'POST', now],
      ['a short mac', `${address} ${at} ${mac!.slice(0, 10)}`, key, 'POST', now],
      ['an unsigned chain added', `${h} x`, key, 'POST', now],
      ['a chain added to a signed chain', `${withChain} ${chain}`, key, 'POST', now],
      ['another chain', `${withChain.slice(0, withChain.lastIndexOf(' '))} ${Buffer.from('other').toString('base64url')}`, key, 'POST', now],
      ['no chain where one was signed', withChain.slice(0, withChain.lastIndexOf(' ')), key, 'POST', now],
      ['a time that is not digits', `${address} 1e12 ${mac}`, key, 'POST', now],
    ] as const) {
      assert.equal(verifiedForwardedFor(k, header, method, at2), undefined, why);
    }
  });
});
