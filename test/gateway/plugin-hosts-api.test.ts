/**
 * Plugin host catalogs over a real discovery agent (issue 26 scope 5), through the
 * gateway's API on a dev gateway (controller and worker): the `consul` plugin's catalog
 * and set fields with their 400s (nothing stored), the token kept write-only
 * (`secrets_hmac` only, in no reply), the set's hosts following the agent's passing
 * instances as they change (a failing check leaves, a new instance comes),
 * `:authorize-session` using the instance's address and port and the set's
 * `preferred_endpoints`, hosts the API cannot make or change, and an agent outage that
 * keeps the last hosts and shows `sync_error` until the agent is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../src/services/gateway/server.js';
import { call as meshCall, startAgent, type TestAgent } from '../mesh/helpers.js';
import { until } from '../processes.js';
import { gatewayCaller, startDevGateway, type GatewayReply } from './fixture.js';

const RECOVERY = 'recovery-token-for-plugin-hosts';
const MESH_ROOT = '0b8f2c1e-4d3a-4e5f-9a6b-7c8d9e0f1a2b';
const PROJECT = 'p_1234567890';

describe('gateway plugin host catalogs on a discovery agent', { timeout: 120_000 }, () => {
  let gw: Gateway;
  let mesh: TestAgent;
  let base = '';
  const texts: string[] = [];
  const call = gatewayCaller(() => base, { token: RECOVERY, onText: (t) => texts.push(t) });
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, { body });
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const fields = (r: GatewayReply) =>
    Object.fromEntries((r.body?.details?.request_fields ?? []).map((f: { description: string; name: string }) => [f.name, f.description]));
  const register = async (body: unknown) =>
    assert.equal((await meshCall(mesh.url, 'PUT', '/v1/agent/service/register', { token: MESH_ROOT, body })).status, 200);
  const catalogRegister = async (body: unknown) =>
    assert.equal((await meshCall(mesh.url, 'PUT', '/v1/catalog/register', { token: MESH_ROOT, body })).status, 200);
  /** The set's hosts once `check` accepts them (polled). */
  const hostsOf = async (setId: string, what: string, check: (hosts: Array<{ id: string; attributes: { address: string; port: number } }>) => boolean) =>
    until(what, 15_000, async () => {
      const set = await ok('GET', `host-sets/${setId}`);
      const hosts = await Promise.all((set.host_ids as string[]).map((id) => ok('GET', `hosts/${id}`)));
      return check(hosts) ? hosts : undefined;
    });

  before(async () => {
    mesh = await startAgent({ initialManagement: MESH_ROOT });
    ({ gateway: gw, url: base } = await startDevGateway(RECOVERY));
  });
  after(async () => {
    gw.force();
    await gw.shutdown();
    await mesh?.stop().catch(() => undefined);
  });

  it('refuses bad plugin catalogs and sets naming the field, and never shows the token', async () => {
    const bad = async (path: string, body: unknown) => {
      const r = await call('POST', path, { body });
      assert.equal(r.status, 400, r.text);
      return fields(r);
    };
    const before = (await ok('GET', `host-catalogs?scope_id=${PROJECT}`)).items.length;
    assert.deepEqual(await bad('host-catalogs', { scope_id: PROJECT, type: 'plugin', attributes: { address: mesh.url } }), {
      plugin_name: 'This field is required for a plugin host catalog: "consul".',
    });
    assert.deepEqual(await bad('host-catalogs', { scope_id: PROJECT, type: 'plugin', plugin_name: 'aws', attributes: { address: mesh.url } }), {
      plugin_name: 'Unknown plugin; the only one is "consul".',
    });
    assert.deepEqual(await bad('host-catalogs', { scope_id: PROJECT, type: 'plugin', plugin_name: 'consul', attributes: { address: 'ftp://x' } }), {
      'attributes.address': 'Must be the discovery service as http://host:port or https://host:port.',
    });
    assert.deepEqual(await bad('host-catalogs', { scope_id: PROJECT, type: 'plugin', plugin_name: 'consul', attributes: {} }), {
      'attributes.address': 'This field is required.',
    });
    assert.deepEqual(
      await bad('host-catalogs', {
        scope_id: PROJECT,
        type: 'plugin',
        plugin_name: 'consul',
        attributes: { address: mesh.url },
        secrets: { token: MESH_ROOT, key: 1 },
      }),
      { 'secrets.key': 'Unknown field.' },
    );
    // A token the discovery service refuses, and a service that does not answer.
    const refused = await bad('host-catalogs', {
      scope_id: PROJECT,
      type: 'plugin',
      plugin_name: 'consul',
      attributes: { address: mesh.url },
      secrets: { token: '11111111-2222-4333-8444-555555555555' },
    });
    assert.match(refused['secrets.token'], /^The discovery service refused the catalog's settings: ACL not found$/);
    const unreachable = await bad('host-catalogs', { scope_id: PROJECT, type: 'plugin', plugin_name: 'consul', attributes: { address: 'http://127.0.0.1:1' } });
    assert.match(unreachable['attributes.address'], /^The discovery service could not be reached/);
    assert.equal((await ok('GET', `host-catalogs?scope_id=${PROJECT}`)).items.length, before, 'nothing stored');

    const cat = await ok('POST', 'host-catalogs', {
      scope_id: PROJECT,
      type: 'plugin',
      plugin_name: 'consul',
      name: 'mesh',
      attributes: { address: mesh.url },
      secrets: { token: MESH_ROOT },
    });
    assert.match(cat.id, /^hcplg_[0-9A-Za-z]{10}$/);
    assert.equal(cat.type, 'plugin');
    assert.equal(cat.plugin_id, 'pl_consulmesh');
    assert.deepEqual(cat.plugin, { id: 'pl_consulmesh', name: 'consul', description: "Hosts from a Cairn discovery service's passing instances" });
    assert.deepEqual(cat.attributes, { address: mesh.url });
    assert.match(cat.secrets_hmac, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(cat.secrets, undefined);
    assert.deepEqual(cat.authorized_collection_actions, { 'host-sets': ['create', 'list'], hosts: ['list'] });

    for (const [body, want] of [
      [{}, { 'attributes.service_name': 'This field is required.' }],
      [{ attributes: { service_name: 'a b' } }, { 'attributes.service_name': 'Must be a service name of at most 255 characters without "/" or spaces.' }],
      [{ attributes: { service_name: 'web', filter: 'Service.Port ==' } }, { 'attributes.filter': /^Unable to parse the filter: / }],
      [
        { attributes: { service_name: 'web' }, preferred_endpoints: ['ip:10.0.0.1'] },
        { preferred_endpoints: '"ip:10.0.0.1" must start with "cidr:" or "dns:".' },
      ],
      [
        { attributes: { service_name: 'web' }, preferred_endpoints: ['cidr:10.0.0.0/33'] },
        { preferred_endpoints: '"cidr:10.0.0.0/33" is not a CIDR block (address/bits).' },
      ],
      [
        { attributes: { service_name: 'web' }, sync_interval_seconds: -1 },
        { sync_interval_seconds: 'Syncing cannot be turned off: hosts follow the discovery service as it changes.' },
      ],
      [{ attributes: { service_name: 'web' }, sync_interval_seconds: 601 }, { sync_interval_seconds: 'Must be at most 600.' }],
      [{ type: 'static', attributes: { service_name: 'web' } }, { type: "Doesn't match the parent resource's type." }],
    ] as const) {
      const got = await bad('host-sets', { host_catalog_id: cat.id, ...body });
      for (const [k, v] of Object.entries(want)) {
        if (typeof v === 'string') assert.equal(got[k], v, k);
        else assert.match(got[k], v as RegExp, k);
      }
    }
    assert.equal((await ok('GET', `host-sets?host_catalog_id=${cat.id}`)).items.length, 0, 'nothing stored');
    assert.ok(!texts.some((t) => t.includes(MESH_ROOT)), 'the discovery token is in no reply');
  });

  it("follows the service's passing instances; a session goes to an instance's address and port", async () => {
    await register({ ID: 'web-1', Name: 'web', Address: '127.0.0.1', Port: 8081, Check: { TTL: '60s', Status: 'passing' } });
    await register({ ID: 'web-2', Name: 'web', Address: '127.0.0.1', Port: 8082, Tags: ['canary'], Check: { TTL: '60s', Status: 'passing' } });
    const cat = await ok('POST', 'host-catalogs', {
      scope_id: PROJECT,
      type: 'plugin',
      plugin_name: 'consul',
      attributes: { address: mesh.url },
      secrets: { token: MESH_ROOT },
    });
    const all = await ok('POST', 'host-sets', { host_catalog_id: cat.id, name: 'web', attributes: { service_name: 'web' } });
    assert.match(all.id, /^hsplg_/);
    assert.deepEqual(all.plugin, { id: 'pl_consulmesh', name: 'consul', description: "Hosts from a Cairn discovery service's passing instances" });
    const canary = await ok('POST', 'host-sets', { host_catalog_id: cat.id, type: 'plugin', attributes: { service_name: 'web', tag: 'canary' } });
    const both = await hostsOf(all.id, 'both instances in the set', (h) => h.length === 2);
    assert.deepEqual(both.map((h) => h.attributes.port).sort(), [8081, 8082]);
    const [host] = await hostsOf(canary.id, 'the canary in its set', (h) => h.length === 1);
    assert.match(host.id, /^hplg_/);
    assert.equal((host as unknown as { type: string }).type, 'plugin');
    assert.deepEqual((host as unknown as { host_set_ids: string[] }).host_set_ids.sort(), [all.id, canary.id].sort());
    assert.equal((host as unknown as { external_name: string }).external_name, 'web');
    assert.deepEqual(host.attributes, { address: '127.0.0.1', port: 8082, node: 'test', service_id: 'web-2' });
    assert.ok((await ok('GET', `host-sets/${all.id}`)).last_sync_time);
    assert.equal((await ok('GET', `host-sets/${all.id}`)).version, 1, 'the sync does not raise the version');

    // The API does not make, change or delete a plugin catalog's hosts.
    for (const [method, path, body] of [
      ['POST', 'hosts', { host_catalog_id: cat.id, attributes: { address: '10.0.0.1' } }],
      ['PATCH', `hosts/${host.id}`, { version: 1, name: 'x' }],
      ['DELETE', `hosts/${host.id}`, undefined],
      ['POST', `host-sets/${all.id}:add-hosts`, { version: 1, host_ids: [host.id] }],
    ] as const) {
      const r = await call(method, path, { body });
      assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
      assert.match(r.body.message, /of a plugin host catalog are made by its plugin's sync and cannot be changed\.$/);
    }

    // A target over the canary set: the session goes to the instance's port, not the target's default.
    const target = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'web-canary', attributes: { default_port: 9 } });
    await ok('POST', `targets/${target.id}:add-host-sources`, { version: target.version, host_source_ids: [canary.id] });
    const session = await ok('POST', `targets/${target.id}:authorize-session`, {});
    assert.equal(session.endpoint, 'tcp://127.0.0.1:8082');
    assert.equal(session.host_id, host.id);
    assert.equal(session.host_set_id, canary.id);

    // A failing check takes the instance out; a new instance comes in; the set follows.
    assert.equal((await meshCall(mesh.url, 'PUT', '/v1/agent/check/fail/service:web-2', { token: MESH_ROOT })).status, 200);
    await hostsOf(canary.id, 'the failing canary leaves its set', (h) => h.length === 0);
    await hostsOf(all.id, 'and the other set', (h) => h.length === 1 && h[0].attributes.port === 8081);
    const gone = await call('GET', `hosts/${host.id}`);
    assert.equal(gone.status, 404, 'a host no set holds is deleted');
    const noHost = await call('POST', `targets/${target.id}:authorize-session`, { body: {} });
    assert.equal(noHost.status, 400);
    assert.equal(noHost.body.message, 'No host sources or address found for given target.');
    await register({ ID: 'web-3', Name: 'web', Address: '127.0.0.1', Port: 8083, Tags: ['canary'], Check: { TTL: '60s', Status: 'passing' } });
    await hostsOf(canary.id, 'the new canary in its set', (h) => h.length === 1 && h[0].attributes.port === 8083);
    assert.equal((await ok('POST', `targets/${target.id}:authorize-session`, {})).endpoint, 'tcp://127.0.0.1:8083');
  });

  it("picks the address the set's preferred_endpoints name; no port → the target's default_port", async () => {
    await catalogRegister({ Node: 'db-node', Address: 'db-node.example', Service: { ID: 'db-1', Service: 'db', Address: '127.0.0.2' } });
    const cat = await ok('POST', 'host-catalogs', {
      scope_id: PROJECT,
      type: 'plugin',
      plugin_name: 'consul',
      attributes: { address: mesh.url },
      secrets: { token: MESH_ROOT },
    });
    const byDns = await ok('POST', 'host-sets', { host_catalog_id: cat.id, attributes: { service_name: 'db' }, preferred_endpoints: ['dns:*.example'] });
    const byCidr = await ok('POST', 'host-sets', { host_catalog_id: cat.id, attributes: { service_name: 'db' }, preferred_endpoints: ['cidr:10.0.0.0/8'] });
    assert.deepEqual(byDns.preferred_endpoints, ['dns:*.example']);
    const [host] = await hostsOf(byDns.id, 'the db instance', (h) => h.length === 1);
    assert.deepEqual((host as unknown as { ip_addresses: string[] }).ip_addresses, ['127.0.0.2']);
    assert.deepEqual((host as unknown as { dns_names: string[] }).dns_names, ['db-node.example']);
    await hostsOf(byCidr.id, 'the db instance in the other set', (h) => h.length === 1);
    const target = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'db', attributes: { default_port: 5432 } });
    await ok('POST', `targets/${target.id}:add-host-sources`, { version: target.version, host_source_ids: [byDns.id] });
    assert.equal((await ok('POST', `targets/${target.id}:authorize-session`, {})).endpoint, 'tcp://db-node.example:5432');
    await ok('POST', `targets/${target.id}:set-host-sources`, { version: target.version + 1, host_source_ids: [byCidr.id] });
    const none = await call('POST', `targets/${target.id}:authorize-session`, { body: {} });
    assert.equal(none.status, 400, 'no address in 10.0.0.0/8: the host is not offered');
  });

  it('keeps the last hosts through an outage of the discovery service and shows sync_error until it is back', async () => {
    await register({ ID: 'api-1', Name: 'api', Address: '127.0.0.1', Port: 7001 });
    const cat = await ok('POST', 'host-catalogs', {
      scope_id: PROJECT,
      type: 'plugin',
      plugin_name: 'consul',
      attributes: { address: mesh.url },
      secrets: { token: MESH_ROOT },
    });
    const set = await ok('POST', 'host-sets', { host_catalog_id: cat.id, attributes: { service_name: 'api' }, sync_interval_seconds: 2 });
    assert.equal(set.sync_interval_seconds, 2);
    await hostsOf(set.id, 'the api instance', (h) => h.length === 1);
    const dataDir = mesh.dataDir;
    const address = new URL(mesh.url).host;
    await mesh.stop();
    const failed = await until('the sync error on the set', 20_000, async () => {
      const s = await ok('GET', `host-sets/${set.id}`);
      return s.sync_error ? s : undefined;
    });
    assert.equal(failed.host_ids.length, 1, 'the last hosts are kept');
    assert.ok(!String(failed.sync_error).includes(MESH_ROOT));
    const target = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'api', attributes: { default_port: 9 } });
    await ok('POST', `targets/${target.id}:add-host-sources`, { version: target.version, host_source_ids: [set.id] });
    assert.equal((await ok('POST', `targets/${target.id}:authorize-session`, {})).endpoint, 'tcp://127.0.0.1:7001');
    // The agent back on the same address and data: the error clears.
    mesh = await startAgent({ initialManagement: MESH_ROOT }, { dataDir, httpAddress: address });
    await until('the sync error cleared', 60_000, async () => ((await ok('GET', `host-sets/${set.id}`)).sync_error === undefined ? true : undefined));
  });
});
