/**
 * The agent endpoints over HTTP (issue 16 scopes 3, 8; reference/mesh-catalog.md "Agent"):
 * its own node in the catalog (`serfHealth`, the `consul` service), self and members,
 * services and checks registered with it and synced to the catalog (anti-entropy repairs a
 * catalog deregistration), TTL checks expiring, HTTP and TCP checks run on their interval
 * against loopback servers, `DeregisterCriticalServiceAfter`, maintenance modes, the
 * aggregated health endpoint's status codes, and ACLs.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '7f3e9c5a-1d4b-4e8f-a02c-3b4d5e6f7081';

describe('discovery agent: local services and checks', () => {
  let a: TestAgent;
  const as = (token: string | undefined) => ({
    get: (p: string) => call(a.url, 'GET', p, { token }),
    put: (p: string, body?: unknown) => call(a.url, 'PUT', p, { token, body }),
  });
  const root = () => as(ROOT);
  /** The catalog's checks of this agent's node by ID → status. */
  const catalogChecks = async (): Promise<Record<string, { Status: string; Output: string }>> =>
    Object.fromEntries((await root().get('/v1/health/node/test')).json.map((c: { CheckID: string }) => [c.CheckID, c]));

  before(async () => {
    a = await startAgent({ initialManagement: ROOT }, {}, { syncIntervalMs: 200, checkReapIntervalMs: 100, checkDeregisterMinMs: 0, checkUpdateIntervalMs: 0 });
  });
  after(() => a.stop());

  it('the agent registers its node with serfHealth and the consul service; self and members', async () => {
    const checks = await until('the node is synced', 5000, async () => ((await catalogChecks()).serfHealth ? catalogChecks() : undefined));
    assert.deepEqual([checks.serfHealth.Status, checks.serfHealth.Output], ['passing', 'Agent alive and reachable']);
    assert.deepEqual((await root().get('/v1/catalog/services')).json.consul, []);
    const self = await root().get('/v1/agent/self');
    assert.equal(self.status, 200);
    assert.deepEqual([self.json.Config.Datacenter, self.json.Config.NodeName, self.json.Config.Server], ['dc1', 'test', true]);
    assert.match(self.json.Config.NodeID, /^[0-9a-f-]{36}$/);
    assert.equal(self.json.Config.NodeID, (await root().get('/v1/catalog/node/test')).json.Node.ID);
    assert.equal(typeof self.json.Config.Version, 'string');
    assert.equal(self.json.Member.Status, 1);
    const members = (await root().get('/v1/agent/members')).json;
    assert.deepEqual(
      members.map((m: { Name: string; Status: number }) => [m.Name, m.Status]),
      [['test', 1]],
    );
    const anon = await call(a.url, 'GET', '/v1/agent/self', {});
    assert.equal(anon.status, 403);
    assert.match(anon.text, /^Permission denied: anonymous token lacks permission 'agent:read' on "test"/);
  });

  it('service with a TTL check: registered, synced, passed, expired; anti-entropy repairs a catalog deregistration', async () => {
    const reg = await root().put('/v1/agent/service/register', { Name: 'api', Port: 9000, Tags: ['v1'], Check: { TTL: '600ms', Notes: 'heartbeat' } });
    assert.deepEqual([reg.status, reg.text], [200, '']);
    const svc = (await root().get('/v1/agent/services')).json.api;
    assert.deepEqual(svc, {
      ID: 'api',
      Service: 'api',
      Tags: ['v1'],
      Meta: {},
      Port: 9000,
      Address: '',
      Weights: { Passing: 1, Warning: 1 },
      EnableTagOverride: false,
      Datacenter: 'dc1',
    });
    assert.deepEqual((await root().get('/v1/agent/service/api')).json.Port, 9000);
    assert.equal((await root().get('/v1/agent/service/nope')).text, 'unknown service ID: nope');
    const local = (await root().get('/v1/agent/checks')).json['service:api'];
    assert.deepEqual([local.Name, local.Status, local.Type, local.ServiceName, local.Notes], ["Service 'api' check", 'critical', 'ttl', 'api', 'heartbeat']);

    await until('the service reaches the catalog', 5000, async () => ((await root().get('/v1/catalog/service/api')).json.length === 1 ? true : undefined));
    assert.equal((await root().put('/v1/agent/check/pass/service:api?note=all%20good')).status, 200);
    await until('the pass reaches the catalog', 5000, async () => ((await catalogChecks())['service:api']?.Status === 'passing' ? true : undefined));
    assert.equal((await catalogChecks())['service:api'].Output, 'all good');
    const health = await root().get('/v1/agent/health/service/name/api');
    assert.deepEqual([health.status, health.json[0].AggregatedStatus, health.json[0].Service.ID], [200, 'passing', 'api']);
    // No update within the TTL: critical, "TTL expired (last output …)".
    const expired = await until('the TTL expires', 5000, async () => {
      const c = (await catalogChecks())['service:api'];
      return c?.Status === 'critical' ? c : undefined;
    });
    assert.equal(expired.Output, 'TTL expired (last output before timeout follows): all good');
    assert.equal((await root().get('/v1/agent/health/service/name/api')).status, 503);
    assert.equal((await root().put('/v1/agent/check/warn/service:api')).status, 200);
    assert.equal((await root().get('/v1/agent/health/service/name/api')).status, 429);
    const missing = await root().get('/v1/agent/health/service/name/none');
    assert.deepEqual([missing.status, missing.json], [404, []]);

    // The catalog loses the service; the next sync puts it back.
    assert.equal((await root().put('/v1/catalog/deregister', { Node: 'test', ServiceID: 'api' })).text, 'true');
    await until('anti-entropy restores the service', 5000, async () => ((await root().get('/v1/catalog/service/api')).json.length === 1 ? true : undefined));
    // A service written to the catalog for this node behind the agent's back goes.
    await root().put('/v1/catalog/register', { Node: 'test', Address: '127.0.0.1', SkipNodeUpdate: true, Service: { Service: 'stray' } });
    await until('anti-entropy removes the stray service', 5000, async () =>
      (await root().get('/v1/catalog/service/stray')).json.length === 0 ? true : undefined,
    );

    assert.equal((await root().put('/v1/agent/service/deregister/api')).status, 200);
    await until('the deregistration reaches the catalog', 5000, async () =>
      (await root().get('/v1/catalog/service/api')).json.length === 0 ? true : undefined,
    );
    assert.equal((await catalogChecks())['service:api'], undefined);
    const unknown = await root().put('/v1/agent/service/deregister/api');
    assert.deepEqual([unknown.status, unknown.text], [404, 'Unknown service ID "api". Ensure that the service ID is passed, not the service name.']);
  });

  it('HTTP and TCP checks run on their interval and follow their target', async () => {
    let code = 200;
    const target: Server = createHttpServer((_req, res) => {
      if (code === 0) return; // never answers
      res.writeHead(code);
      res.end(code === 200 ? 'ok' : 'x'.repeat(5000) + 'END');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = (target.address() as { port: number }).port;
    const tcp = createTcpServer((s) => s.end());
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const tcpPort = (tcp.address() as { port: number }).port;
    try {
      const url = `http://127.0.0.1:${port}/health`;
      const reg = await root().put('/v1/agent/service/register', {
        Name: 'web',
        Port: port,
        Checks: [
          { Name: 'http', HTTP: url, Interval: '1s', Timeout: '500ms' },
          { Name: 'tcp', TCP: `127.0.0.1:${tcpPort}`, Interval: '1s' },
        ],
      });
      assert.equal(reg.status, 200, reg.text);
      const passing = await until('both checks pass', 8000, async () => {
        const c = await catalogChecks();
        return c['service:web:1']?.Status === 'passing' && c['service:web:2']?.Status === 'passing' ? c : undefined;
      });
      assert.equal(passing['service:web:1'].Output, `HTTP GET ${url}: 200 OK Output: ok`);
      assert.equal(passing['service:web:2'].Output, `TCP connect 127.0.0.1:${tcpPort}: Success`);
      assert.equal((await root().get('/v1/health/service/web?passing')).json.length, 1);

      code = 429;
      await until('429 is a warning', 8000, async () => ((await catalogChecks())['service:web:1']?.Status === 'warning' ? true : undefined));
      code = 500;
      // A loaded machine may time a probe out (critical too): wait for the 500's output.
      const failed = await until('the HTTP check goes critical', 8000, async () => {
        const c = (await catalogChecks())['service:web:1'];
        return c?.Status === 'critical' && c.Output.startsWith('HTTP GET') ? c : undefined;
      });
      assert.match(failed.Output, /^HTTP GET .*: 500 Internal Server Error Output: x+END$/);
      assert.equal(Buffer.byteLength(failed.Output.slice(failed.Output.indexOf('Output: ') + 8)), 4096, 'the body is cut to 4 KiB');
      assert.deepEqual((await root().get('/v1/health/service/web?passing')).json, []);
      code = 200;
      await until('the HTTP check passes again', 8000, async () => ((await catalogChecks())['service:web:1']?.Status === 'passing' ? true : undefined));
      code = 0;
      const timedOut = await until('a target that never answers times out', 8000, async () => {
        const c = (await catalogChecks())['service:web:1'];
        return c?.Status === 'critical' && !c.Output.startsWith('HTTP GET') ? c : undefined;
      });
      assert.equal(timedOut.Output, `GET "${url}": request timed out after 500ms`);

      await new Promise<void>((r) => tcp.close(() => r()));
      const refused = await until('the TCP check goes critical', 8000, async () => {
        const c = (await catalogChecks())['service:web:2'];
        return c?.Status === 'critical' ? c : undefined;
      });
      assert.match(refused.Output, /^dial tcp 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    } finally {
      await root().put('/v1/agent/service/deregister/web');
      target.closeAllConnections();
      target.close();
      tcp.close();
    }
  });

  it('DeregisterCriticalServiceAfter removes a service whose check stays critical', async () => {
    await root().put('/v1/agent/service/register', { Name: 'flaky', Check: { TTL: '100ms', DeregisterCriticalServiceAfter: '300ms' } });
    assert.ok((await root().get('/v1/agent/services')).json.flaky);
    await until('the reaper removes the service', 5000, async () => ((await root().get('/v1/agent/services')).json.flaky ? undefined : true));
    await until('and the catalog follows', 5000, async () => ((await root().get('/v1/catalog/service/flaky')).json.length === 0 ? true : undefined));
  });

  it('maintenance modes, check register/update/deregister, bad input', async () => {
    await root().put('/v1/agent/service/register', { ID: 'db-1', Name: 'db', Check: { CheckID: 'db-ttl', TTL: '1h', Status: 'passing' } });
    assert.equal((await root().get('/v1/agent/health/service/name/db')).status, 200);
    assert.equal((await root().put('/v1/agent/service/maintenance/db-1?enable=true&reason=upgrade')).status, 200);
    const maint = await root().get('/v1/agent/health/service/name/db');
    assert.deepEqual([maint.status, maint.json[0].AggregatedStatus], [503, 'maintenance']);
    const check = (await root().get('/v1/agent/checks')).json['_service_maintenance:db-1'];
    assert.deepEqual([check.Status, check.Notes, check.Name], ['critical', 'upgrade', 'Service Maintenance Mode']);
    await until('maintenance reaches the catalog', 5000, async () =>
      (await root().get('/v1/health/service/db?passing')).json.length === 0 ? true : undefined,
    );
    assert.equal((await root().put('/v1/agent/service/maintenance/db-1?enable=false')).status, 200);
    assert.equal((await root().get('/v1/agent/health/service/name/db')).status, 200);
    assert.equal((await root().put('/v1/agent/service/maintenance/db-1')).text, 'Missing value for enable');
    assert.equal((await root().put('/v1/agent/service/maintenance/db-1?enable=maybe')).text, 'Invalid value for enable: "maybe"');

    assert.equal((await root().put('/v1/agent/maintenance?enable=true')).status, 200);
    assert.equal(
      (await root().get('/v1/agent/checks')).json._node_maintenance.Notes,
      'Maintenance mode is enabled for this node, but no reason was provided. This is a default message.',
    );
    assert.equal((await root().get('/v1/agent/health/service/name/db')).status, 503, 'node maintenance counts for every service');
    assert.equal((await root().put('/v1/agent/maintenance?enable=false')).status, 200);

    assert.equal((await root().put('/v1/agent/check/register', { Name: 'disk', TTL: '1h' })).status, 200);
    assert.equal((await root().put('/v1/agent/check/update/disk', { Status: 'warning', Output: 'y'.repeat(5000) })).status, 200);
    const disk = (await root().get('/v1/agent/checks')).json.disk;
    assert.equal(disk.Status, 'warning');
    assert.ok(disk.Output.endsWith(' ... (captured 4096 of 5000 bytes)'));
    assert.equal((await root().put('/v1/agent/check/update/disk', { Status: 'bogus' })).text, "Invalid check status: 'bogus'");
    assert.deepEqual(
      [(await root().put('/v1/agent/check/pass/ghost')).status, (await root().put('/v1/agent/check/pass/ghost')).text],
      [404, 'CheckID "ghost" does not have associated TTL'],
    );
    assert.equal((await root().put('/v1/agent/check/deregister/disk')).status, 200);
    assert.equal((await root().get('/v1/agent/checks')).json.disk, undefined);

    const bad = async (path: string, body: unknown, text: string) => {
      const r = await root().put(path, body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    };
    await bad('/v1/agent/service/register', { Port: 1 }, 'Missing service name');
    await bad('/v1/agent/service/register', { Name: 'x', Check: { Interval: '10s' } }, 'Invalid check: TTL must be > 0 for TTL checks');
    await bad(
      '/v1/agent/service/register',
      { Name: 'x', Check: { HTTP: 'http://127.0.0.1:1/' } },
      'Invalid check: Interval must be > 0 for Script, HTTP, H2PING, or TCP checks',
    );
    await bad('/v1/agent/service/register', { Name: 'x', Check: { TTL: 'soon' } }, 'Check.TTL: time: invalid duration "soon"');
    await bad('/v1/agent/service/register', { Name: 'x', Check: { Args: ['/bin/true'], Interval: '10s' } }, 'Invalid check: Args checks are not supported');
    await bad('/v1/agent/check/register', { Name: 'c', TTL: '1s', ServiceID: 'ghost' }, 'ServiceID "ghost" does not exist');
    await bad('/v1/agent/check/register', { CheckID: 'nameless', TTL: '1s' }, 'Missing check name');
    assert.equal((await root().get('/v1/agent/services')).json.x, undefined, 'nothing registered');
    await root().put('/v1/agent/service/deregister/db-1');
  });

  it('ACL: agent writes need service:write, reads are filtered', async () => {
    await root().put('/v1/agent/service/register', { Name: 'shop', Check: { TTL: '1h' } });
    await root().put('/v1/agent/service/register', { Name: 'cart', Check: { TTL: '1h' } });
    await root().put('/v1/acl/policy', { Name: 'shop-read', Rules: 'service "shop" { policy = "read" }' });
    const token = (await root().put('/v1/acl/token', { Policies: [{ Name: 'shop-read' }] })).json;
    const reader = as(token.SecretID);
    const seen = await reader.get('/v1/agent/services');
    assert.deepEqual(Object.keys(seen.json), ['shop']);
    assert.equal(seen.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    assert.deepEqual(Object.keys((await reader.get('/v1/agent/checks')).json), ['service:shop']);
    const denied = await reader.put('/v1/agent/service/register', { Name: 'shop' });
    assert.deepEqual(
      [denied.status, denied.text],
      [403, `Permission denied: token with AccessorID '${token.AccessorID}' lacks permission 'service:write' on "shop"`],
    );
    assert.equal((await reader.put('/v1/agent/check/pass/service:cart')).status, 403);
    assert.equal((await reader.get('/v1/agent/health/service/name/cart')).status, 403);
    await root().put('/v1/agent/service/deregister/shop');
    await root().put('/v1/agent/service/deregister/cart');
  });
});

describe('discovery agent: check_update_interval', () => {
  it('an output change that keeps the status waits for check_update_interval; a status change goes at once', async () => {
    const b = await startAgent({ initialManagement: ROOT }, {}, { syncIntervalMs: 200, checkUpdateIntervalMs: 600_000 });
    const root = () => ({
      get: (p: string) => call(b.url, 'GET', p, { token: ROOT }),
      put: (p: string, body?: unknown) => call(b.url, 'PUT', p, { token: ROOT, body }),
    });
    const catalogChecks = async (): Promise<Record<string, { Status: string; Output: string }>> =>
      Object.fromEntries((await root().get('/v1/health/node/test')).json.map((c: { CheckID: string }) => [c.CheckID, c]));
    try {
      await root().put('/v1/agent/service/register', { Name: 'chatty', Check: { TTL: '1h' } });
      assert.equal((await root().put('/v1/agent/check/pass/service:chatty?note=one')).status, 200);
      await until('the first output reaches the catalog', 5000, async () => ((await catalogChecks())['service:chatty']?.Output === 'one' ? true : undefined));
      assert.equal((await root().put('/v1/agent/check/pass/service:chatty?note=two')).status, 200);
      assert.equal((await root().get('/v1/agent/checks')).json['service:chatty'].Output, 'two', 'the agent shows it at once');
      // A later sync (this one brings another service) still carries the output pushed last.
      await root().put('/v1/agent/service/register', { Name: 'marker', Check: { TTL: '1h' } });
      await until('the marker is synced', 5000, async () => ((await root().get('/v1/catalog/service/marker')).json.length === 1 ? true : undefined));
      assert.equal((await catalogChecks())['service:chatty'].Output, 'one');
      assert.equal((await root().put('/v1/agent/check/warn/service:chatty?note=three')).status, 200);
      await until('a status change goes at once, with its output', 5000, async () =>
        (await catalogChecks())['service:chatty']?.Output === 'three' ? true : undefined,
      );
      assert.equal((await catalogChecks())['service:chatty'].Status, 'warning');
    } finally {
      await b.stop();
    }
  });

  it('a deferred output change is written once the interval has passed', async () => {
    const b = await startAgent({ initialManagement: ROOT }, {}, { checkUpdateIntervalMs: 300 });
    try {
      const put = (p: string, body?: unknown) => call(b.url, 'PUT', p, { token: ROOT, body });
      const output = async () => (await call(b.url, 'GET', '/v1/health/checks/quiet', { token: ROOT })).json[0]?.Output;
      await put('/v1/agent/service/register', { Name: 'quiet', Check: { TTL: '1h' } });
      await put('/v1/agent/check/pass/service:quiet?note=first');
      await until('the first output is synced', 5000, async () => ((await output()) === 'first' ? true : undefined));
      await put('/v1/agent/check/pass/service:quiet?note=second');
      await until('the deferred output is synced', 5000, async () => ((await output()) === 'second' ? true : undefined));
    } finally {
      await b.stop();
    }
  });
});

describe('discovery agent: definitions survive a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-mesh-local-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps services and checks (encrypted: a header secret is not on disk in clear) and syncs them again', async () => {
    const first = await startAgent({ initialManagement: ROOT }, { dataDir: dir });
    const secret = 'Bearer s3cret-probe-token';
    const reg = await call(first.url, 'PUT', '/v1/agent/service/register', {
      token: ROOT,
      body: {
        Name: 'kept',
        Port: 1234,
        Checks: [
          { TTL: '1h', Status: 'passing' },
          { HTTP: 'http://127.0.0.1:1/', Interval: '1h', Header: { Authorization: [secret] } },
        ],
      },
    });
    assert.equal(reg.status, 200, reg.text);
    assert.equal((await call(first.url, 'PUT', '/v1/agent/check/register', { token: ROOT, body: { Name: 'node-ttl', TTL: '1h' } })).status, 200);
    await first.stop();
    for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f)).includes(Buffer.from('s3cret')), `${f} holds the header in clear`);

    const second = await startAgent({ initialManagement: ROOT }, { dataDir: dir });
    try {
      assert.deepEqual(Object.keys((await call(second.url, 'GET', '/v1/agent/services', { token: ROOT })).json), ['kept']);
      const checks = (await call(second.url, 'GET', '/v1/agent/checks', { token: ROOT })).json;
      assert.deepEqual(Object.keys(checks).sort(), ['node-ttl', 'service:kept:1', 'service:kept:2']);
      assert.deepEqual(checks['service:kept:2'].Definition.Header, { Authorization: [secret] });
      await until('the restored service is in the catalog', 5000, async () =>
        (await call(second.url, 'GET', '/v1/health/service/kept', { token: ROOT })).json.length === 1 ? true : undefined,
      );
    } finally {
      await second.stop();
    }
  });
});
