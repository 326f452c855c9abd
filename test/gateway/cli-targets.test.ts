/**
 * The gateway host and target commands (`cairn gateway host-catalogs|hosts|host-sets|
 * targets …`) run in-process, and the SDK's target methods, against a real controller
 * bootstrapped with the dev values (project `p_1234567890`, admin / password on
 * `ampw_1234567890`): what the commands print and what the controller then stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewayApiError, GatewayClient } from '../../src/sdk/index.js';
import type { Gateway } from '../../src/services/gateway/server.js';
import { gatewayCli, startDevGateway } from './fixture.js';

const PROJECT = 'p_1234567890';
const RECOVERY = 'recovery-cli-targets';

describe('cairn gateway host and target commands, SDK target methods', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let env: Record<string, string>;
  let address: string;
  const { run, json } = gatewayCli(() => env);

  before(async () => {
    ({ gateway, url: address } = await startDevGateway(RECOVERY));
    env = { GATEWAY_ADDR: address };
    const login = await run(['authenticate', 'password', '-auth-method-id=ampw_1234567890', '-login-name=admin', '-password=password']);
    env.GATEWAY_TOKEN = /Token:\s+(at_\S+)/.exec(login.stdout)![1];
  });
  after(async () => {
    gateway.force();
    await gateway.shutdown();
  });

  it('makes a catalog, hosts, a host set and a target, attaches the set, and deletes', async () => {
    const cat = await json(['host-catalogs', 'create', 'static', `-scope-id=${PROJECT}`, '-name=servers']);
    assert.match(cat.id, /^hcst_/);
    const h1 = await json(['hosts', 'create', 'static', `-host-catalog-id=${cat.id}`, '-address=10.0.0.1', '-name=web1']);
    const h2 = await json(['hosts', 'create', `-host-catalog-id=${cat.id}`, '-address=web2.internal']);
    assert.equal(h2.attributes.address, 'web2.internal');
    const badHost = await run(['hosts', 'create', `-host-catalog-id=${cat.id}`, '-address=10.0.0.3:22']);
    assert.equal(badHost.code, 1);
    assert.match(badHost.stderr, /attributes\.address: Address for static hosts does not support a port\. \(HTTP 400\)/);
    const wrongType = await run(['hosts', 'create', 'plugin', `-host-catalog-id=${cat.id}`, '-address=10.0.0.3']);
    assert.equal(wrongType.code, 2);
    const set = await json(['host-sets', 'create', `-host-catalog-id=${cat.id}`, '-name=web']);
    const filled = await json(['host-sets', 'add-hosts', `-id=${set.id}`, `-host=${h1.id}`, `-host=${h2.id}`]);
    assert.deepEqual(filled.host_ids, [h1.id, h2.id]);
    assert.equal(filled.version, 2);
    const trimmed = await json(['host-sets', 'remove-hosts', `-id=${set.id}`, '-version=2', `-host=${h2.id}`]);
    assert.deepEqual(trimmed.host_ids, [h1.id]);
    const stale = await run(['host-sets', 'set-hosts', `-id=${set.id}`, '-version=2', `-host=${h2.id}`]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /version mismatch/);

    const t = await json([
      'targets',
      'create',
      'tcp',
      `-scope-id=${PROJECT}`,
      '-name=ssh',
      '-default-port=22',
      '-default-client-port=2222',
      '-session-max-seconds=3600',
      '-session-connection-limit=-1',
      '-egress-worker-filter="dev" in "/tags/env"',
    ]);
    assert.match(t.id, /^ttcp_/);
    assert.deepEqual(t.attributes, { default_port: 22, default_client_port: 2222 });
    assert.equal(t.session_max_seconds, 3600);
    assert.equal(t.egress_worker_filter, '"dev" in "/tags/env"');
    const attached = await json(['targets', 'add-host-sources', `-id=${t.id}`, `-host-source=${set.id}`]);
    assert.deepEqual(attached.host_sources, [{ id: set.id, host_catalog_id: cat.id }]);
    const updated = await json(['targets', 'update', 'tcp', `-id=${t.id}`, '-session-connection-limit=3']);
    assert.equal(updated.session_connection_limit, 3);
    assert.equal(updated.version, 3);
    const text = await run(['targets', 'read', `-id=${t.id}`]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /default_port\s+22\n/);
    assert.match(text.stdout, new RegExp(`host_source_ids\\s+${set.id}\\n`));
    assert.match(text.stdout, /authorized_actions\s+.*authorize-session/);
    const listed = await run(['targets', 'list', `-scope-id=${PROJECT}`]);
    assert.match(listed.stdout, new RegExp(`^${t.id}  ssh$`, 'm'));
    const noPort = await run(['targets', 'create', `-scope-id=${PROJECT}`, '-name=x']);
    assert.equal(noPort.code, 1);
    assert.match(noPort.stderr, /attributes\.default_port: This field is required\./);
    const badNumber = await run(['targets', 'create', `-scope-id=${PROJECT}`, '-name=x', '-default-port=ssh']);
    assert.equal(badNumber.code, 2);
    const noCreds = await run(['targets', 'add-credential-sources', `-id=${t.id}`, '-brokered-credential-source=clvlt_0000000000']);
    assert.equal(noCreds.code, 1);
    assert.match(noCreds.stderr, /brokered_credential_source_ids: Credential source "clvlt_0000000000"/);

    assert.equal((await run(['hosts', 'delete', `-id=${h1.id}`])).code, 0);
    assert.deepEqual((await json(['host-sets', 'read', `-id=${set.id}`])).host_ids, []);
    assert.equal((await run(['host-catalogs', 'delete', `-id=${cat.id}`])).code, 0);
    const gone = await run(['host-sets', 'read', `-id=${set.id}`]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Resource not found/);
    assert.deepEqual((await json(['targets', 'read', `-id=${t.id}`])).host_source_ids, []);
    assert.equal((await run(['targets', 'delete', `-id=${t.id}`])).code, 0);
  });

  it('the SDK lists and reads targets and changes host sources with the version', async () => {
    const client = new GatewayClient({ address, token: RECOVERY });
    try {
      const cat = await client.create('host-catalogs', { scope_id: PROJECT, type: 'static' });
      const h = await client.create('hosts', { host_catalog_id: cat.id, attributes: { address: '127.0.0.1' } });
      const set = await client.create('host-sets', { host_catalog_id: cat.id });
      const withHost = await client.changeHosts(set.id, 'add', 1, [h.id]);
      assert.deepEqual(withHost.host_ids, [h.id]);
      const t = await client.create('targets', { scope_id: PROJECT, type: 'tcp', name: 'sdk', attributes: { default_port: 5432 } });
      const attached = await client.changeHostSources(t.id, 'add', 1, [set.id]);
      assert.deepEqual(attached.host_sources, [{ id: set.id, host_catalog_id: cat.id }]);
      assert.equal(attached.version, 2);
      const read = await client.readTarget(t.id);
      assert.equal(read.attributes.default_port, 5432);
      assert.equal(read.session_connection_limit, -1);
      const listed = await client.listTargets('global', { recursive: true, filter: '"/item/name" == "sdk"' });
      assert.deepEqual(
        listed.map((x) => x.id),
        [t.id],
      );
      const cleared = await client.changeHostSources(t.id, 'set', 2, []);
      assert.deepEqual(cleared.host_source_ids, []);
      await assert.rejects(client.changeCredentialSources(t.id, 'add', 3, ['credup_0000000000']), (err: unknown) => {
        assert.ok(err instanceof GatewayApiError);
        assert.equal(err.status, 400);
        assert.match(err.message, /brokered_credential_source_ids: Credential source "credup_0000000000" is not a credential library or a credential\./);
        return true;
      });
      await assert.rejects(client.changeHostSources(t.id, 'add', 1, [set.id]), /version mismatch/);
    } finally {
      await client.close();
    }
  });
});
