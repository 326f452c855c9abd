/**
 * Two discovery servers as two datacenters on loopback (issue 5 "Must show"): policies,
 * roles and global tokens written in the primary appear in the secondary; local tokens
 * stay; writes of global objects sent to the secondary land in the primary; `?dc=`
 * forwards; `GET /acl/replication` tells the truth, including an outage of the primary
 * (`LastError` later than `LastSuccess`, with a message) and the recovery.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

const MGMT = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const hostPort = (url: string) => url.replace(/^http:\/\//, '');

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (performance.now() > end) assert.fail(`not met within ${ms} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('ACL replication between datacenters', { timeout: 150_000 }, () => {
  it('replicates, forwards, reports, survives an outage of the primary', async () => {
    let primary: TestAgent = await startAgent({ initialManagement: MGMT }, { datacenter: 'dc1', primaryDatacenter: 'dc1' });
    const primaryAddress = hostPort(primary.url);
    const secondary = await startAgent(
      { tokenReplication: true, replicationToken: MGMT },
      { datacenter: 'dc2', primaryDatacenter: 'dc1', wanAddresses: { dc1: primaryAddress } },
      { replicationWaitMs: 2000, replicationBackoffMs: 200 },
    );
    const p = (m: string, path: string, body?: unknown) => call(primary.url, m, path, { token: MGMT, body });
    const s = (m: string, path: string, body?: unknown) => call(secondary.url, m, path, { token: MGMT, body });
    try {
      // The management token itself is a global token: it arrives first, then it works in dc2.
      await waitFor(
        () => s('GET', '/v1/acl/token/self'),
        (r) => r.status === 200,
      );
      const status0 = (await call(secondary.url, 'GET', '/v1/acl/replication')).json;
      assert.equal(status0.Enabled, true);
      assert.equal(status0.Running, true);
      assert.equal(status0.SourceDatacenter, 'dc1');
      assert.equal(status0.ReplicationType, 'tokens');

      const policy = await p('PUT', '/v1/acl/policy', { Name: 'web-read', Rules: 'service "web" { policy = "read" }' });
      const role = await p('PUT', '/v1/acl/role', { Name: 'web', Policies: [{ ID: policy.json.ID }] });
      const token = await p('PUT', '/v1/acl/token', { Description: 'global', Roles: [{ ID: role.json.ID }] });
      const inSecondary = await waitFor(
        () => s('GET', `/v1/acl/policy/${policy.json.ID}`),
        (r) => r.status === 200,
      );
      assert.equal(inSecondary.json.Rules, 'service "web" { policy = "read" }');
      assert.equal(inSecondary.json.Hash, policy.json.Hash, 'replicated objects keep the Hash');
      const t2 = await waitFor(
        () => s('GET', `/v1/acl/token/${token.json.AccessorID}`),
        (r) => r.status === 200,
      );
      assert.deepEqual(t2.json.Roles, [{ ID: role.json.ID, Name: 'web' }]);
      assert.equal(t2.json.SecretID, token.json.SecretID);

      const policiesIndex = Number((await p('GET', '/v1/acl/policies')).headers.get('x-mesh-index'));
      const tokensIndex = Number((await p('GET', '/v1/acl/tokens')).headers.get('x-mesh-index'));
      const status1 = await waitFor(
        async () => (await call(secondary.url, 'GET', '/v1/acl/replication')).json,
        (st) => st.ReplicatedIndex >= policiesIndex && st.ReplicatedTokenIndex >= tokensIndex,
      );
      assert.match(status1.LastSuccess, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(status1.LastError, '0001-01-01T00:00:00Z');
      assert.equal(status1.LastErrorMessage, '');

      // A local token stays in dc2; a global write sent to dc2 lands in dc1 and comes back.
      const local = await s('PUT', '/v1/acl/token', { Description: 'dc2 only', Local: true });
      assert.equal(local.status, 200);
      assert.equal((await p('GET', `/v1/acl/token/${local.json.AccessorID}`)).status, 404);
      // The forwarding decision reads the decoded body: a Local of the wrong kind is the same 400.
      assert.deepEqual(await s('PUT', '/v1/acl/token', { Local: 'yes' }).then((r) => [r.status, r.text]), [400, 'Local must be a boolean']);
      const viaSecondary = await s('PUT', '/v1/acl/policy', { Name: 'from-dc2' });
      assert.equal(viaSecondary.status, 200);
      assert.equal((await p('GET', '/v1/acl/policy/name/from-dc2')).status, 200, 'written in the primary');
      await waitFor(
        () => s('GET', '/v1/acl/policy/name/from-dc2'),
        (r) => r.status === 200,
      );
      await p('DELETE', `/v1/acl/policy/${policy.json.ID}`);
      await waitFor(
        () => s('GET', `/v1/acl/policy/${policy.json.ID}`),
        (r) => r.status === 404,
      );
      assert.equal((await s('GET', `/v1/acl/token/${local.json.AccessorID}`)).status, 200, 'replication leaves local tokens alone');

      // ?dc= forwards; an unknown datacenter has no path.
      const forwarded = await call(secondary.url, 'GET', `/v1/acl/replication?dc=dc1`);
      assert.equal(forwarded.json.Enabled, false, 'the primary answered');
      assert.deepEqual(await s('GET', '/v1/acl/policies?dc=dc9').then((r) => [r.status, r.text]), [500, 'No path to datacenter']);

      // Outage of the primary: LastError passes LastSuccess, with a message; then recovery.
      await primary.close();
      const failing = await waitFor(
        async () => (await call(secondary.url, 'GET', '/v1/acl/replication')).json,
        (st) => st.LastError > st.LastSuccess && st.LastErrorMessage !== '',
      );
      assert.match(failing.LastErrorMessage, /^failed to retrieve remote ACL (policies|roles|tokens): rpc error making call: /);
      assert.equal((await s('GET', `/v1/acl/token/${token.json.AccessorID}`)).status, 200, 'the secondary keeps serving its copy');

      primary = await startAgent(
        { initialManagement: MGMT },
        { datacenter: 'dc1', primaryDatacenter: 'dc1', dataDir: primary.dataDir, httpAddress: primaryAddress },
      );
      await p('PUT', '/v1/acl/policy', { Name: 'after-outage' });
      await waitFor(
        () => s('GET', '/v1/acl/policy/name/after-outage'),
        (r) => r.status === 200,
        40_000,
      );
      const healed = await waitFor(
        async () => (await call(secondary.url, 'GET', '/v1/acl/replication')).json,
        (st) => st.LastSuccess >= st.LastError,
      );
      assert.equal(healed.Running, true);
    } finally {
      await secondary.stop();
      await primary.stop().catch(() => undefined);
    }
  });

  it('a secondary without token replication holds no local tokens: login and local tokens are refused', async () => {
    const primary = await startAgent({ initialManagement: MGMT }, { datacenter: 'dc1' });
    const secondary = await startAgent(
      { replicationToken: MGMT },
      { datacenter: 'dc2', primaryDatacenter: 'dc1', wanAddresses: { dc1: hostPort(primary.url) } },
      { replicationWaitMs: 1000, replicationBackoffMs: 200 },
    );
    try {
      await waitFor(
        async () => (await call(secondary.url, 'GET', '/v1/acl/replication')).json,
        (st) => st.ReplicatedIndex > 0,
      );
      assert.equal((await call(secondary.url, 'GET', '/v1/acl/replication')).json.ReplicationType, 'policies');
      // The management token is global, but tokens are not replicated here: use ?dc= for a token the primary knows.
      const local = await call(secondary.url, 'PUT', '/v1/acl/token?dc=dc1', { token: MGMT, body: { Local: true } });
      assert.equal(local.status, 200, 'in the primary, local tokens are fine');
      const login = await call(secondary.url, 'POST', '/v1/acl/login', { body: { AuthMethod: 'x', BearerToken: 'y' } });
      assert.deepEqual([login.status, login.text], [500, 'Token replication is required for auth methods to function']);
    } finally {
      await secondary.stop();
      await primary.stop();
    }
  });

  it('a replication token without acl:write cannot replicate tokens: the status says why', async () => {
    const primary = await startAgent({ initialManagement: MGMT }, { datacenter: 'dc1' });
    const ro = await call(primary.url, 'PUT', '/v1/acl/policy', { token: MGMT, body: { Name: 'repl-read', Rules: 'acl = "read"' } });
    const weak = await call(primary.url, 'PUT', '/v1/acl/token', { token: MGMT, body: { Policies: [{ ID: ro.json.ID }] } });
    const secondary = await startAgent(
      { tokenReplication: true, replicationToken: weak.json.SecretID },
      { datacenter: 'dc2', primaryDatacenter: 'dc1', wanAddresses: { dc1: hostPort(primary.url) } },
      { replicationWaitMs: 1000, replicationBackoffMs: 200 },
    );
    try {
      const st = await waitFor(
        async () => (await call(secondary.url, 'GET', '/v1/acl/replication')).json,
        (x) => x.LastErrorMessage !== '',
      );
      assert.equal(st.LastErrorMessage, 'failed to retrieve unredacted tokens - replication token in use does not grant acl:write');
    } finally {
      await secondary.stop();
      await primary.stop();
    }
  });
});
