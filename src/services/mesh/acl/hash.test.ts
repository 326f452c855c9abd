// Tests of the token/policy/role hashes (reference/mesh.md §6.2): BLAKE2b-256 test
// vectors, and hashes of known inputs whose expected values were computed with an
// independent implementation (Python's hashlib.blake2b, digest_size=32).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { GLOBAL_MANAGEMENT_POLICY } from './builtin.js';
import { policyHash, roleHash, tokenHash } from './hash.js';

const hex = (text: string) => Buffer.from(blake2b(Buffer.from(text), { dkLen: 32 })).toString('hex');

describe('BLAKE2b-256', () => {
  it('matches the published test vectors', () => {
    assert.equal(hex(''), '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8');
    assert.equal(hex('abc'), 'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319');
  });
});

describe('tokenHash', () => {
  it('hashes Description, locality, policy and role IDs, then identities, with no separators', () => {
    const hash = tokenHash({
      description: 'web token',
      local: false,
      policyIds: ['a0c9b3b4-0000-4000-8000-000000000001'],
      roleIds: ['r-1'],
      serviceIdentities: [{ serviceName: 'web', datacenters: ['dc1', 'dc2'] }],
      nodeIdentities: [{ nodeName: 'node-1', datacenter: 'dc1' }],
    });
    assert.equal(hash, 'xny/Gi7P+HKK1vU3mM20gw0vAbCbmXDKTEmNqmng2Zs=');
  });

  it('writes "local" for a local token with nothing else', () => {
    const hash = tokenHash({ description: '', local: true, policyIds: [], roleIds: [], serviceIdentities: [], nodeIdentities: [] });
    assert.equal(hash, 'phJYEP8TihveNo6aOJCxLxq34AAOhSYayisOMnod+Kc=');
  });

  it('appends templated policies: TemplateID, TemplateName, the Name variable, datacenters', () => {
    const hash = tokenHash({
      description: 'd',
      local: false,
      policyIds: [],
      roleIds: [],
      serviceIdentities: [],
      nodeIdentities: [],
      templatedPolicies: [{ templateId: '00000000-0000-0000-0000-000000000003', templateName: 'builtin/service', name: 'api', datacenters: ['dc1'] }],
    });
    assert.equal(hash, 'suhebGqq0NNvyeMPeVvNAssxfk5ygqAElmqW8S3rHsg=');
  });

  it('changes with any hashed field', () => {
    const base = { description: 'x', local: false, policyIds: ['p'], roleIds: [], serviceIdentities: [], nodeIdentities: [] };
    assert.notEqual(tokenHash(base), tokenHash({ ...base, local: true }));
    assert.notEqual(tokenHash(base), tokenHash({ ...base, policyIds: ['q'] }));
  });
});

describe('policyHash', () => {
  it('hashes Name, Description, Rules and each datacenter', () => {
    const hash = policyHash({ name: 'node-read', description: 'reads nodes', rules: 'node_prefix "" { policy = "read" }', datacenters: ['dc1'] });
    assert.equal(hash, 'OSF3ch6ELqXGx+rS5AL9GtjJ1gSBRQDvyThMRnlzSX0=');
  });

  it('hashes the built-in global-management policy', () => {
    const { name, description, rules } = GLOBAL_MANAGEMENT_POLICY;
    assert.equal(policyHash({ name, description, rules, datacenters: [] }), '8m3kwsGDbstsJJ7L5KodHHjpcCxlWUS+/EmCkkvmL3Y=');
  });
});

describe('roleHash', () => {
  it('hashes Name, Description, policy IDs, service then node identities', () => {
    const hash = roleHash({
      name: 'ops',
      description: 'operators',
      policyIds: ['p-1', 'p-2'],
      serviceIdentities: [{ serviceName: 'api' }],
      nodeIdentities: [{ nodeName: 'n1', datacenter: 'dc3' }],
    });
    assert.equal(hash, 'Xk3kx3hwwC+Ou814FTrTuj75y3x6I3fCkUBFU7/GaDI=');
  });
});
