/**
 * The discovery service driven by the reference product's own client libraries (issue 16
 * "Tests and measurements", first bullet; reference/mesh-catalog.md "Clients people use"):
 * the `consul` npm package (v2) called in-process, and Debian's `python3-consul` (0.7.1)
 * run as `/usr/bin/python3 test/mesh/testdata/<script>.py` printing JSON. Both talk to a
 * loopback proxy that renames `X-Consul-*` headers to Cairn's `X-Mesh-*` and back
 * (header-proxy.ts); the agent runs with ACLs on (default deny) and the clients carry the
 * management token. Covered: agent service registration with checks, catalog
 * register/deregister/reads, health with `passing`, KV get/put/CAS/flags/keys/recurse/
 * delete, sessions create/info/node/list/renew/destroy, locks with acquire/release,
 * transactions (npm only: python3-consul 0.7.1 has no txn), status, ACL refusals and
 * filtering, and watches (blocking queries on the index header).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Consul from 'consul';
import type { CheckOptions } from 'consul/lib/agent/check.js';
import { until } from '../processes.js';
import { startHeaderProxy, type HeaderProxy } from './header-proxy.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '3f1c2b7a-5d4e-4c8b-9a6f-0e1d2c3b4a59';
const PYTHON = '/usr/bin/python3';
const TESTDATA = join(import.meta.dirname, 'testdata');

/*
 * Where node-consul 2's bundled declarations differ from what it sends and returns, the
 * tests name the real shapes: a key as read (with `Session`), papi's per-call `ctx` (left
 * out of the option types), a transaction as the reference's operation array, and its reply.
 */
/** One key as node-consul returns it. */
type KvItem = { Key: string; Value: string; Flags: number; LockIndex: number; CreateIndex: number; ModifyIndex: number; Session?: string };
/** Call options carrying papi's `ctx`, which makes the call resolve `[response, body]`. */
type WithCtx = { ctx: EventEmitter };
/** A transaction reply: one entry per operation. */
type TxnReply = { Errors: unknown; Results: Array<{ KV: KvItem; Node?: { Node: string } }> };
/** The declarations' `kv.set` options (no `ctx`). */
type KvSetOptions = { key: string; value: string };
/** `kv.set(key, value, { flags })`, declared to need `value` in the options again. */
type KvSetWithFlags = { set(key: string, value: string, options: { flags: number }): Promise<boolean> };
/** `transaction.create(operations)` with the reference's capitalised operations, declared to need options. */
type TxnCreate = { create(operations: object[], options?: object): Promise<TxnReply> };
/** `watch` over a method whose options are not all strings (`passing: true`), declared as strings only. */
type WatchAnyOptions = { watch(options: { method: unknown; options: Record<string, string | boolean> }): ReturnType<Consul['watch']> };

describe('reference client libraries through a header-renaming proxy', () => {
  let a: TestAgent;
  let proxy: HeaderProxy;
  let consul: Consul;

  /**
   * node-consul resolves a `false` reply as undefined (papi keeps only truthy values), so a
   * refused CAS or lock is read with the response: `[res, body]` via `ctx.includeResponse`.
   */
  const refused = async (op: (ctx: EventEmitter) => Promise<unknown>) => {
    const [, body] = (await op(Object.assign(new EventEmitter(), { includeResponse: true }))) as [unknown, unknown];
    assert.equal(body, false);
  };

  /** A token holding one new policy with `rules`. */
  const tokenWith = async (rules: string): Promise<string> => {
    const p = await call(a.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: `p${Math.random().toString(36).slice(2, 10)}`, Rules: rules } });
    assert.equal(p.status, 200, p.text);
    const t = await call(a.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Policies: [{ ID: p.json.ID }] } });
    assert.equal(t.status, 200, t.text);
    return t.json.SecretID as string;
  };

  /** Runs `testdata/<script>` with the proxy's address, the token and `env`; its stdout is JSON. */
  const python = async (script: string, env: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const { stdout } = await promisify(execFile)(PYTHON, [join(TESTDATA, script)], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROXY_PORT: String(proxy.port), MESH_TOKEN: ROOT, ...env },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  before(async () => {
    a = await startAgent({ initialManagement: ROOT }, {}, { syncIntervalMs: 200 });
    proxy = await startHeaderProxy(a.url);
    consul = new Consul({ host: '127.0.0.1', port: proxy.port, defaults: { token: ROOT } });
    await until('the agent node is synced', 5000, async () =>
      (await call(a.url, 'GET', '/v1/health/node/test', { token: ROOT })).json?.some?.((c: { CheckID: string }) => c.CheckID === 'serfHealth')
        ? true
        : undefined,
    );
  });
  after(async () => {
    consul?.destroy();
    await proxy?.close();
    await a?.stop();
  });

  describe('python3-consul', () => {
    let r: Record<string, unknown>;
    before(async () => {
      const limited = await tokenWith('key_prefix "py-public/" { policy = "read" }');
      r = await python('python_consul_client.py', { LIMITED_TOKEN: limited });
    });

    it('agent services with lower-case keys and TTL checks; health with passing and tag', () => {
      assert.deepEqual([r.register_api1, r.register_api2], [true, true], 'Go decodes `name`, `id`, `check: {ttl}` case-insensitively; so does Cairn');
      assert.deepEqual(r.agent_services, ['api1', 'api2']);
      assert.deepEqual(r.agent_checks, ['service:api1', 'service:api2']);
      assert.equal(r.ttl_pass_get, false, '0.7.1 marks TTL checks with GET: 405 as in the reference since 1.0, so the library says false');
      assert.equal(r.ttl_pass_put, true);
      assert.deepEqual(r.health_passing, ['api1']);
      assert.deepEqual(r.health_all, ['api1', 'api2']);
      assert.deepEqual(r.health_tag, ['api2']);
      assert.deepEqual(r.health_checks, [
        ['service:api1', 'passing'],
        ['service:api2', 'critical'],
      ]);
      assert.deepEqual(r.health_state_critical, ['service:api2']);
      assert.deepEqual(r.health_node, ['serfHealth', 'service:api1', 'service:api2']);
    });

    it('agent self and members, a node check failing every instance, maintenance, deregistration', () => {
      assert.deepEqual(r.agent_self, ['dc1', 'test']);
      const leader = new URL(a.url).host;
      assert.deepEqual(r.status, [leader, [leader]], 'status/peers lists the leader');
      assert.deepEqual(r.agent_members, [['test', 1]]);
      assert.equal(r.check_register, true);
      assert.equal(r.check_fail, true);
      assert.deepEqual(r.check_listed, { Name: 'memory', Status: 'critical', Output: 'oom', Notes: 'RAM' });
      assert.deepEqual(r.health_passing_node_critical, []);
      assert.deepEqual([r.check_deregister_get, r.check_deregister_put], [false, true], '0.7.1 deregisters with GET: 405 as in the reference');
      assert.deepEqual([r.service_maintenance_on, r.service_maintenance_off], [true, true]);
      assert.deepEqual(r.maintenance_checks, [['_service_maintenance:api1', 'critical', 'upgrade']]);
      assert.deepEqual([r.node_maintenance_on, r.node_maintenance_off], [true, true], "enable=True (Python's spelling) is a boolean");
      assert.deepEqual(r.node_maintenance_checks, [['_node_maintenance', 'critical']]);
      assert.deepEqual(r.health_passing_after_maintenance, ['api1']);
      assert.deepEqual([r.service_deregister_get, r.service_deregister_put], [false, true]);
      assert.deepEqual(r.agent_services_after, ['api1']);
    });

    it('ACLs: a limited token (sent as ?token=) reads its prefix, is refused a write and other keys with 403, gets a filtered recurse', () => {
      assert.equal(r.limited_get, 'hi');
      assert.match(
        (r.limited_put as { error: string }).error,
        /^ACLPermissionDenied: Permission denied: token with AccessorID '[0-9a-f-]{36}' lacks permission 'key:write' on "py-public\/motd"$/,
      );
      assert.match((r.limited_get_private as { error: string }).error, /^ACLPermissionDenied: Permission denied: .* 'key:read'/);
      assert.deepEqual(r.limited_recurse, ['py-public/motd']);
      assert.equal(r.value_after_refusal, 'hi');
    });

    it("TCP and HTTP checks from the library's helpers run on the agent: passing, and critical for a 404", () => {
      assert.deepEqual([r.register_tcp, r.register_http, r.register_http_bad], [true, true, true]);
      assert.deepEqual(r.tcp_passing, ['tcp1']);
      assert.deepEqual(r.http_passing, ['http1']);
      assert.deepEqual(r.http_bad_status, ['critical']);
      assert.deepEqual(r.http_check_definition, { Type: 'http', Interval: '1s', Timeout: '2s' });
    });

    it('catalog register (lower-case keys, a WriteRequest object), reads, deregister', () => {
      assert.equal(r.catalog_register, true);
      assert.deepEqual(r.catalog_datacenters, ['dc1']);
      assert.deepEqual(r.catalog_nodes, ['pyext', 'test']);
      assert.deepEqual(r.catalog_services, { api: ['v1'], cache: ['lru'], consul: [] });
      assert.deepEqual(r.catalog_service, [['pyext', 'cache1', 6379, '10.2.0.1']]);
      assert.deepEqual(r.catalog_node, ['cache1']);
      assert.equal(r.catalog_deregister, true);
      assert.deepEqual(r.catalog_nodes_after, ['test']);
    });

    it('KV: put/get, the index header, a missing key, CAS, flags, keys, recurse, a blocking read, deletes', () => {
      assert.equal(r.kv_put, true);
      assert.deepEqual(r.kv_get, { Key: 'py/conf/a', Value: '1', Flags: 0, LockIndex: 0 });
      assert.equal(r.kv_get_index_matches, true, "X-Consul-Index is the key's ModifyIndex");
      assert.equal(r.kv_missing, null, 'a 404 with an index header is (index, None)');
      assert.deepEqual([r.kv_cas_old, r.kv_cas_ok, r.kv_cas_create_exists], [false, true, false]);
      assert.deepEqual([r.kv_put_flags, r.kv_flags, r.kv_put_none], [true, 7, true]);
      assert.deepEqual(r.kv_keys, ['py/conf/a', 'py/conf/b', 'py/dir/']);
      assert.deepEqual(r.kv_keys_sep, ['py/conf/', 'py/dir/']);
      assert.deepEqual(r.kv_recurse, [
        ['py/conf/a', '2'],
        ['py/conf/b', 'x'],
      ]);
      assert.equal(r.kv_blocking_timeout_same_index, true);
      assert.deepEqual(r.kv_blocking_woken, [true, 'woken'], 'a blocking read returns on a write with a higher index');
      assert.deepEqual([r.kv_delete_cas_old, r.kv_delete_cas_ok, r.kv_delete_recurse, r.kv_keys_after], [false, true, true, null]);
    });

    it('sessions (lower-case keys) and a lock: acquire, contention, release, Behavior delete on destroy', () => {
      assert.match(String(r.session_create), /^[0-9a-f-]{36}$/);
      assert.deepEqual(r.session_info, { ID: r.session_create, Name: 'py-lock', Node: 'test', TTL: '30s', Behavior: 'delete', LockDelay: 0 });
      assert.deepEqual([r.session_node, r.session_list], [true, true]);
      assert.deepEqual(r.session_renew, { ID: r.session_create, TTL: '30s' });
      assert.deepEqual([r.lock_acquire, r.lock_acquire_other], [true, false]);
      assert.deepEqual(r.lock_held, { Value: 'me', Session: r.session_create, LockIndex: 1 });
      assert.equal(r.lock_release, true);
      assert.deepEqual(r.lock_after_release, { Session: null, LockIndex: 1 });
      assert.equal(r.lock_reacquire, true);
      assert.equal(r.session_destroy, true);
      assert.equal(r.session_info_after, null);
      assert.equal(r.lock_key_after_destroy, null, 'the held key went with its session');
      assert.deepEqual(r.session_renew_gone, { error: `NotFound: Session id '${String(r.session_create)}' not found` });
      assert.equal(r.session_destroy_other, true);
    });

    it('?dc= naming this datacenter, a Datacenter field, ?stale=1, a body token ignored; an unknown datacenter is 500 No path to datacenter', () => {
      assert.deepEqual([r.dc_catalog_register, r.dc_catalog_nodes, r.dc_catalog_deregister], [true, true, true]);
      assert.match(
        (r.dc_catalog_deregister_body_token as { error: string }).error,
        /^ACLPermissionDenied: Permission denied: anonymous token lacks permission 'node:write' on "pydc"/,
        'a token in the body is not read, as the reference',
      );
      assert.deepEqual([r.dc_kv_put, r.dc_kv_get_stale], [true, '1']);
      assert.deepEqual(r.unknown_dc, { error: 'ConsulException: 500 No path to datacenter' });
    });

    it('a session tied to a service check: the check failing ends it and frees its lock', () => {
      assert.deepEqual(r.api1_passing_in_catalog, ['passing']);
      assert.match(String(r.session_tied), /^[0-9a-f-]{36}$/);
      assert.equal(r.tied_acquire, true);
      assert.equal(r.tied_lock_after_fail, null);
      assert.equal(r.tied_session_after_fail, null);
    });
  });

  describe('npm consul', () => {
    it('agent registration with TTL checks, catalog and health reads, passing only', async () => {
      await consul.agent.service.register({ name: 'web', id: 'web1', port: 8080, tags: ['v1'], check: { ttl: '30s', status: 'passing' } as CheckOptions });
      await consul.agent.service.register({ name: 'web', id: 'web2', port: 8081, tags: ['v2'], check: { ttl: '30s' } as CheckOptions });
      const local = await consul.agent.service.list();
      assert.deepEqual([local.web1.Service, local.web1.Port, local.web2.Tags], ['web', 8080, ['v2']]);

      await until('the catalog has both instances', 5000, async () => ((await consul.catalog.service.nodes('web')).length === 2 ? true : undefined));
      const nodes = await consul.catalog.service.nodes({ service: 'web', tag: 'v1' });
      assert.deepEqual(
        nodes.map((n: { ServiceID: string; Node: string }) => [n.ServiceID, n.Node]),
        [['web1', 'test']],
      );
      const services = await consul.catalog.service.list();
      assert.deepEqual(services.web, ['v1', 'v2']);

      const passing = await consul.health.service({ service: 'web', passing: true });
      assert.deepEqual(
        passing.map((e: { Service: { ID: string } }) => e.Service.ID),
        ['web1'],
        'a new TTL check starts critical',
      );
      const all = await consul.health.service('web');
      assert.equal(all.length, 2);
      const web2 = all.find((e: { Service: { ID: string } }) => e.Service.ID === 'web2');
      assert.deepEqual(
        web2.Checks.map((c: { CheckID: string; Status: string }) => [c.CheckID, c.Status]),
        [
          ['serfHealth', 'passing'],
          ['service:web2', 'critical'],
        ],
      );

      await consul.agent.check.pass({ id: 'service:web2', note: 'ok now' });
      await until('web2 passes', 5000, async () => ((await consul.health.service({ service: 'web', passing: true })).length === 2 ? true : undefined));
      const checks = await consul.health.checks('web');
      assert.equal(checks.find((c: { CheckID: string }) => c.CheckID === 'service:web2')!.Output, 'ok now');
      await consul.agent.check.warn('service:web1');
      await until('web1 warns and drops out of passing', 5000, async () => {
        const p = await consul.health.service({ service: 'web', passing: true });
        return p.length === 1 && p[0].Service.ID === 'web2' ? true : undefined;
      });
      const warning = await consul.health.state('warning');
      assert.deepEqual(
        warning.map((c: { CheckID: string }) => c.CheckID),
        ['service:web1'],
      );
      const nodeChecks = await consul.health.node('test');
      assert.ok(nodeChecks.some((c: { CheckID: string }) => c.CheckID === 'serfHealth'));

      await consul.agent.service.deregister('web2');
      await until('web2 leaves the catalog', 5000, async () => ((await consul.catalog.service.nodes('web')).length === 1 ? true : undefined));
    });

    it('catalog register, node reads, deregister', async () => {
      await consul.catalog.register({
        node: 'ext1',
        address: '10.1.0.1',
        nodemeta: { rack: 'r1' },
        service: { id: 'db1', service: 'db', tags: ['primary'], port: 5432 },
        check: { checkid: 'service:db1', name: 'db alive', serviceid: 'db1', status: 'passing' },
      });
      const dcs = await consul.catalog.datacenters();
      assert.deepEqual(dcs, ['dc1']);
      const nodes = await consul.catalog.node.list();
      const ext1 = nodes.find((n: { Node: string }) => n.Node === 'ext1');
      assert.deepEqual([ext1.Address, ext1.Meta], ['10.1.0.1', { rack: 'r1' }]);
      const one = await consul.catalog.node.services('ext1');
      assert.deepEqual([one.Node.Node, one.Services.db1.Service, one.Services.db1.Port], ['ext1', 'db', 5432]);
      const healthy = await consul.health.service({ service: 'db', passing: true });
      assert.deepEqual(
        healthy.map((e: { Node: { Node: string } }) => e.Node.Node),
        ['ext1'],
      );

      await consul.catalog.deregister({ node: 'ext1', serviceid: 'db1' });
      assert.deepEqual(await consul.catalog.service.nodes('db'), []);
      await consul.catalog.deregister('ext1');
      assert.ok(!(await consul.catalog.node.list()).some((n: { Node: string }) => n.Node === 'ext1'));
    });

    it('KV: set/get with flags, CAS, keys with a separator, recurse, delete with CAS and recurse', async () => {
      assert.equal(await (consul.kv as KvSetWithFlags).set('app/config/db', 'postgres://db', { flags: 42 }), true);
      const got = (await consul.kv.get('app/config/db')) as KvItem;
      assert.deepEqual([got.Key, got.Value, got.Flags, got.LockIndex], ['app/config/db', 'postgres://db', 42, 0]);
      assert.equal(await consul.kv.get('app/missing'), undefined, 'a missing key is undefined, not an error');

      await refused((ctx) => consul.kv.set({ key: 'app/config/db', value: 'stale', cas: got.ModifyIndex - 1, ctx } as KvSetOptions & WithCtx));
      assert.equal(await consul.kv.set({ key: 'app/config/db', value: 'fresh', cas: got.ModifyIndex }), true);
      assert.equal(((await consul.kv.get('app/config/db')) as KvItem).Value, 'fresh');
      await refused((ctx) => consul.kv.set({ key: 'app/config/db', value: 'again', cas: 0, ctx } as KvSetOptions & WithCtx));
      assert.equal(await consul.kv.set({ key: 'app/config/new', value: 'created', cas: 0 }), true);

      await consul.kv.set('app/feature/a', '1');
      await consul.kv.set('app/feature/b', '2');
      assert.deepEqual(await consul.kv.keys('app/'), ['app/config/db', 'app/config/new', 'app/feature/a', 'app/feature/b']);
      assert.deepEqual(await consul.kv.keys({ key: 'app/', separator: '/' }), ['app/config/', 'app/feature/']);
      const tree = (await consul.kv.get({ key: 'app/feature/', recurse: true })) as KvItem[];
      assert.deepEqual(
        tree.map((e: { Key: string; Value: string }) => [e.Key, e.Value]),
        [
          ['app/feature/a', '1'],
          ['app/feature/b', '2'],
        ],
      );

      const cur = (await consul.kv.get('app/config/new')) as KvItem;
      await refused((ctx) => consul.kv.del({ key: 'app/config/new', cas: cur.ModifyIndex + 1, ctx } as { key: string } & WithCtx));
      assert.equal(await consul.kv.del({ key: 'app/config/new', cas: cur.ModifyIndex }), true);
      assert.equal(await consul.kv.del({ key: 'app/feature/', recurse: true }), true);
      assert.deepEqual(await consul.kv.keys('app/'), ['app/config/db']);
    });

    it('sessions: create, info, node, list, renew, destroy', async () => {
      const { ID: id } = await consul.session.create({ name: 'npm-session', ttl: '30s', lockdelay: '1s', behavior: 'release' });
      assert.match(id, /^[0-9a-f-]{36}$/);
      const info = await consul.session.info(id);
      assert.deepEqual([info.ID, info.Name, info.Node, info.TTL, info.Behavior, info.LockDelay], [id, 'npm-session', 'test', '30s', 'release', 1e9]);
      assert.ok((await consul.session.node('test')).some((s: { ID: string }) => s.ID === id));
      assert.ok((await consul.session.list()).some((s: { ID: string }) => s.ID === id));
      const renewed = await consul.session.renew(id);
      assert.deepEqual([renewed[0].ID, renewed[0].TTL], [id, '30s']);
      await consul.session.destroy(id);
      assert.equal(await consul.session.info(id), undefined, 'a destroyed session is gone');
      await assert.rejects(consul.session.renew(id), (err: Error & { response?: { statusCode: number } }) => {
        assert.equal(err.response?.statusCode, 404);
        assert.equal(err.message, `Session id '${id}' not found`, 'a short plain-text error body is the message');
        return true;
      });
    });

    it('locks: acquire, a second session refused, release; LockIndex and Session on the key', async () => {
      const { ID: s1 } = await consul.session.create({ name: 'holder', lockdelay: '0s' });
      const { ID: s2 } = await consul.session.create({ name: 'contender', lockdelay: '0s' });
      assert.equal(await consul.kv.set({ key: 'service/leader', value: 'node-a', acquire: s1 }), true);
      await refused((ctx) => consul.kv.set({ key: 'service/leader', value: 'node-b', acquire: s2, ctx } as KvSetOptions & WithCtx));
      const held = (await consul.kv.get('service/leader')) as KvItem;
      assert.deepEqual([held.Value, held.Session, held.LockIndex], ['node-a', s1, 1]);
      await refused((ctx) => consul.kv.set({ key: 'service/leader', value: 'node-b', release: s2, ctx } as KvSetOptions & WithCtx));
      assert.equal(await consul.kv.set({ key: 'service/leader', value: 'node-a', release: s1 }), true);
      const free = (await consul.kv.get('service/leader')) as KvItem;
      assert.deepEqual([free.Session, free.LockIndex], [undefined, 1]);
      assert.equal(await consul.kv.set({ key: 'service/leader', value: 'node-b', acquire: s2 }), true);
      assert.equal(((await consul.kv.get('service/leader')) as KvItem).LockIndex, 2);
      await consul.session.destroy(s2);
      await consul.session.destroy(s1);
      assert.equal(((await consul.kv.get('service/leader')) as KvItem).Session, undefined, 'destroying the holder releases the lock');
    });

    it('agent self and members, a node check registered, failed and deregistered, service maintenance', async () => {
      const self = await consul.agent.self();
      assert.deepEqual([self.Config.Datacenter, self.Config.NodeName], ['dc1', 'test']);
      const leader = new URL(a.url).host;
      assert.equal(await consul.status.leader(), leader);
      assert.deepEqual(await consul.status.peers(), [leader]);
      const members = await consul.agent.members();
      assert.deepEqual(
        members.map((m: { Name: string; Status: number }) => [m.Name, m.Status]),
        [['test', 1]],
      );

      await consul.agent.check.register({ name: 'disk', id: 'disk', ttl: '60s', status: 'passing' } as CheckOptions & { id: string });
      assert.equal((await consul.agent.check.list()).disk.Status, 'passing');
      await consul.agent.check.fail({ id: 'disk', note: 'full' });
      await until('disk is critical in the catalog', 5000, async () =>
        (await consul.health.state('critical')).some((c: { CheckID: string; Output: string }) => c.CheckID === 'disk' && c.Output === 'full')
          ? true
          : undefined,
      );
      assert.deepEqual(await consul.health.service({ service: 'web', passing: true }), [], 'a critical node check fails every instance on the node');
      await consul.agent.check.deregister('disk');
      await until('disk is gone', 5000, async () =>
        (await consul.health.node('test')).some((c: { CheckID: string }) => c.CheckID === 'disk') ? undefined : true,
      );

      await consul.agent.service.maintenance({ id: 'web1', enable: true, reason: 'upgrade' });
      await until('web1 in maintenance', 5000, async () => {
        const checks = await consul.health.checks('web');
        return checks.some(
          (c: { CheckID: string; Status: string; Notes: string }) =>
            c.CheckID === '_service_maintenance:web1' && c.Status === 'critical' && c.Notes === 'upgrade',
        )
          ? true
          : undefined;
      });
      await consul.agent.service.maintenance({ id: 'web1', enable: false });
      await until('web1 out of maintenance', 5000, async () =>
        (await consul.health.checks('web')).some((c: { CheckID: string }) => c.CheckID.startsWith('_service_maintenance')) ? undefined : true,
      );
    });

    it('KV raw reads; ACLs: a limited token reads what it may, is refused a write with 403, sees a filtered list', async () => {
      await consul.kv.set('public/motd', 'hello');
      await consul.kv.set('private/secret', 'shh');
      const raw = await consul.kv.get({ key: 'public/motd', raw: true });
      assert.ok(Buffer.isBuffer(raw));
      assert.equal(raw.toString(), 'hello');

      // node-consul 2 knows only the legacy ACL API (gone from the reference in 1.11): the token is made directly.
      const limitedToken = await tokenWith('key_prefix "public/" { policy = "read" }\nservice "web" { policy = "read" }\nnode_prefix "" { policy = "read" }');
      const limited = new Consul({ host: '127.0.0.1', port: proxy.port, defaults: { token: limitedToken } });
      try {
        assert.equal(((await limited.kv.get('public/motd')) as KvItem).Value, 'hello');
        await assert.rejects(limited.kv.set('public/motd', 'defaced'), (err: Error & { response?: { statusCode: number } }) => {
          assert.equal(err.response?.statusCode, 403);
          return true;
        });
        assert.equal(((await consul.kv.get('public/motd')) as KvItem).Value, 'hello', 'nothing changed');
        const [res, tree] = (await limited.kv.get({ key: '', recurse: true, ctx: Object.assign(new EventEmitter(), { includeResponse: true }) } as {
          key: string;
        } & WithCtx)) as unknown as [unknown, KvItem[]];
        assert.ok(
          tree.every((e: { Key: string }) => e.Key.startsWith('public/')),
          'other keys are left out, not refused',
        );
        assert.equal((res as { headers: Record<string, string> }).headers['x-consul-results-filtered-by-acls'], 'true');
        const services = await limited.catalog.service.list();
        assert.deepEqual(Object.keys(services), ['web']);
      } finally {
        limited.destroy();
      }
    });

    it('txn: KV set, cas, get and get-tree in one transaction; a failing check-index rolls back with 409 and Errors', async () => {
      const b64 = (v: string) => Buffer.from(v).toString('base64');
      const ok = await (consul.transaction as TxnCreate).create([
        { KV: { Verb: 'set', Key: 'txn/a', Value: b64('1'), Flags: 3 } },
        { KV: { Verb: 'set', Key: 'txn/b', Value: b64('2') } },
        { KV: { Verb: 'get', Key: 'txn/a' } },
        { Node: { Verb: 'set', Node: { Node: 'txn-node', Address: '10.4.0.1' } } },
      ]);
      assert.equal(ok.Errors, null);
      assert.deepEqual(
        ok.Results.map((x: { KV?: { Key: string }; Node?: { Node: string } }) => x.KV?.Key ?? x.Node?.Node),
        ['txn/a', 'txn/b', 'txn/a', 'txn-node'],
      );
      assert.equal(Buffer.from(ok.Results[2].KV.Value, 'base64').toString(), '1');
      assert.equal(ok.Results[0].KV.Value, null, 'a set returns no value, as the reference');
      const a1 = ok.Results[0].KV;
      assert.deepEqual([a1.Flags, a1.LockIndex, a1.CreateIndex === a1.ModifyIndex], [3, 0, true]);
      assert.equal(((await consul.kv.get('txn/b')) as KvItem).Value, '2');
      assert.ok((await consul.catalog.node.list()).some((n: { Node: string }) => n.Node === 'txn-node'));

      const tree = await (consul.transaction as TxnCreate).create([
        { KV: { Verb: 'cas', Key: 'txn/a', Value: b64('1b'), Index: a1.ModifyIndex } },
        { KV: { Verb: 'get-tree', Key: 'txn/' } },
      ]);
      assert.deepEqual(
        tree.Results.slice(1).map((x: { KV: { Key: string; Value: string } }) => [x.KV.Key, Buffer.from(x.KV.Value, 'base64').toString()]),
        [
          ['txn/a', '1b'],
          ['txn/b', '2'],
        ],
      );

      await assert.rejects(
        (consul.transaction as TxnCreate).create([
          { KV: { Verb: 'set', Key: 'txn/c', Value: b64('3') } },
          { KV: { Verb: 'check-index', Key: 'txn/b', Index: 1 } },
        ]),
        (err: Error & { response?: { statusCode: number; body: { Results: unknown; Errors: Array<{ OpIndex: number; What: string }> } } }) => {
          assert.equal(err.response?.statusCode, 409);
          assert.equal(err.response?.body.Results, null);
          assert.deepEqual(
            err.response?.body.Errors.map((e) => e.OpIndex),
            [1],
          );
          assert.match(err.response!.body.Errors[0]!.What, /^failed index check for key "txn\/b", current modify index \d+ != 1$/);
          return true;
        },
      );
      assert.equal(await consul.kv.get('txn/c'), undefined, 'rolled back: nothing stored');
    });

    it('watch: a blocking query on the index header sees a change', async () => {
      await consul.kv.set('watched/key', 'v1');
      const watch = consul.watch({ method: consul.kv.get, options: { key: 'watched/key', wait: '5s' } });
      try {
        const seen: string[] = [];
        watch.on('change', (data: { Value: string } | undefined) => data && seen.push(data.Value));
        watch.on('error', (err: Error) => seen.push(`error: ${err.message}`));
        await until('the first answer', 5000, () => (seen.length > 0 ? true : undefined));
        await consul.kv.set('watched/key', 'v2');
        await until('the change', 5000, () => (seen.includes('v2') ? true : undefined));
        assert.deepEqual(seen, ['v1', 'v2']);
      } finally {
        watch.end();
      }
    });

    it('watch: a blocking health query with passing is woken by a check change', async () => {
      await consul.agent.check.pass('service:web1');
      await until('web1 passes', 5000, async () => ((await consul.health.service({ service: 'web', passing: true })).length === 1 ? true : undefined));
      const watch = (consul as WatchAnyOptions).watch({ method: consul.health.service, options: { service: 'web', passing: true, wait: '5s' } });
      try {
        const seen: string[][] = [];
        watch.on('change', (data: Array<{ Service: { ID: string } }>) => seen.push(data.map((e) => e.Service.ID)));
        await until('the first answer', 5000, () => (seen.length > 0 ? true : undefined));
        await consul.agent.check.fail('service:web1');
        await until('the change', 5000, () => (seen.at(-1)?.length === 0 ? true : undefined));
        // Any write to the tables it reads wakes a blocking query (a return is no guarantee of change).
        assert.deepEqual(
          seen.slice(0, -1).filter((ids) => ids.join() !== 'web1'),
          [],
        );
      } finally {
        watch.end();
      }
    });
  });
});
