/**
 * ACL bootstrap (spec 001 "PUT /acl/bootstrap" and its transitions; reference/mesh.md §1):
 * once, then 403 with the reset index; the reset file; `BootstrapSecret`; a race of 20;
 * `initial_management`; ACLs disabled; and the state file holding no secret in clear.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { call, startAgent } from './helpers.js';

const GM = '00000000-0000-0000-0000-000000000001';

describe('PUT /v1/acl/bootstrap', () => {
  it('returns the management token once; then 403 with the reset index; the reset file allows one more', async () => {
    const a = await startAgent();
    try {
      const first = await call(a.url, 'PUT', '/v1/acl/bootstrap');
      assert.equal(first.status, 200);
      const t = first.json;
      assert.equal(t.ID, t.SecretID, 'the legacy ID field');
      assert.match(t.AccessorID, /^[0-9a-f-]{36}$/);
      assert.equal(t.Description, 'Bootstrap Token (Global Management)');
      assert.deepEqual(t.Policies, [{ ID: GM, Name: 'global-management' }]);
      assert.equal(t.Local, false);
      assert.match(t.Hash, /^[A-Za-z0-9+/]{43}=$/);
      assert.match(t.CreateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
      assert.equal(t.CreateIndex, t.ModifyIndex);
      assert.equal(first.headers.get('x-mesh-index'), null, 'no query meta on bootstrap');

      const again = await call(a.url, 'PUT', '/v1/acl/bootstrap');
      assert.equal(again.status, 403);
      const index = /reset index: (\d+)\)$/.exec(again.text)?.[1];
      assert.equal(again.text, `Permission denied: ACL bootstrap no longer allowed (reset index: ${index})`);
      assert.match(again.headers.get('content-type') ?? '', /^text\/plain/);

      writeFileSync(join(a.dataDir, 'acl-bootstrap-reset'), `${Number(index) + 7}\n`);
      const wrong = await call(a.url, 'PUT', '/v1/acl/bootstrap');
      assert.deepEqual(
        [wrong.status, wrong.text],
        [403, `Permission denied: Invalid bootstrap reset index (specified ${Number(index) + 7}, reset index: ${index})`],
      );
      writeFileSync(join(a.dataDir, 'acl-bootstrap-reset'), `${index}\n`);
      const reset = await call(a.url, 'PUT', '/v1/acl/bootstrap');
      assert.equal(reset.status, 200);
      assert.notEqual(reset.json.SecretID, t.SecretID);
      assert.equal(existsSync(join(a.dataDir, 'acl-bootstrap-reset')), false, 'the reset file is used up');
      assert.equal((await call(a.url, 'PUT', '/v1/acl/bootstrap')).status, 403);
      // Both tokens work: the reset made a new one, it did not revoke the old.
      assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: t.SecretID })).status, 200);

      // Nothing secret in clear in the data directory.
      for (const f of readdirSync(a.dataDir)) {
        const bytes = readFileSync(join(a.dataDir, f)).toString('latin1');
        assert.ok(!bytes.includes(t.SecretID) && !bytes.includes(reset.json.SecretID), `${f} holds a token secret in clear`);
      }
    } finally {
      await a.stop();
    }
  });

  it('20 concurrent bootstrap requests: exactly one 200', async () => {
    const a = await startAgent();
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, () => call(a.url, 'PUT', '/v1/acl/bootstrap')));
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, ...Array(19).fill(403)]);
    } finally {
      await a.stop();
    }
  });

  it('BootstrapSecret: a UUID becomes the secret; anything else is 400 and bootstrap stays possible', async () => {
    const a = await startAgent();
    try {
      assert.deepEqual(await call(a.url, 'PUT', '/v1/acl/bootstrap', { body: { BootstrapSecret: 'not-a-uuid' } }).then((r) => [r.status, r.text]), [
        400,
        'BootstrapSecret must be a UUID',
      ]);
      const bad = await call(a.url, 'PUT', '/v1/acl/bootstrap', { raw: '{"BootstrapSecret":' });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /^Request decoding failed: /);
      const secret = '6b2f3a0e-1c4d-4e5f-8a9b-0c1d2e3f4a5b';
      const ok = await call(a.url, 'PUT', '/v1/acl/bootstrap', { body: { BootstrapSecret: secret } });
      assert.equal(ok.status, 200);
      assert.equal(ok.json.SecretID, secret);
      assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: secret })).json.AccessorID, ok.json.AccessorID);
    } finally {
      await a.stop();
    }
  });

  it('initial_management makes its token at start and uses up bootstrap; a restart keeps one token', async () => {
    const secret = '0f4e1a2b-3c4d-4e5f-9a8b-7c6d5e4f3a2b';
    const a = await startAgent({ initialManagement: secret });
    try {
      const self = await call(a.url, 'GET', '/v1/acl/token/self', { token: secret });
      assert.equal(self.status, 200);
      assert.equal(self.json.Description, 'Initial Management Token');
      assert.deepEqual(self.json.Policies, [{ ID: GM, Name: 'global-management' }]);
      assert.equal((await call(a.url, 'PUT', '/v1/acl/bootstrap')).status, 403);
    } finally {
      await a.close();
    }
    const b = await startAgent({ initialManagement: secret }, { dataDir: a.dataDir });
    try {
      const list = await call(b.url, 'GET', '/v1/acl/tokens', { token: secret });
      assert.equal(list.json.filter((t: { Description: string }) => t.Description === 'Initial Management Token').length, 1);
    } finally {
      await b.stop();
      rmSync(a.dataDir, { recursive: true, force: true });
    }
  });

  it('ACLs disabled: every /acl endpoint answers 401 "ACL support disabled"', async () => {
    const a = await startAgent({ enabled: false });
    try {
      for (const [m, p] of [
        ['PUT', '/v1/acl/bootstrap'],
        ['GET', '/v1/acl/replication'],
        ['GET', '/v1/acl/tokens'],
        ['PUT', '/v1/acl/policy'],
      ]) {
        const r = await call(a.url, m, p);
        assert.deepEqual([r.status, r.text], [401, 'ACL support disabled'], `${m} ${p}`);
      }
    } finally {
      await a.stop();
    }
  });
});
