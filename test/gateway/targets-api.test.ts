/**
 * Host catalogs, hosts, host sets and tcp targets of the gateway's domain API (issue 20
 * scope 1) over real HTTP against a controller bootstrapped with `cairn dev`'s values
 * (project `p_1234567890`, password auth method `ampw_1234567890`): the reference's
 * shapes, defaults and texts, optimistic locking, bad input naming the field with nothing
 * changed, grants (`ids=*;type=target;actions=read` reads but cannot update;
 * `authorized_actions`), credential sources (documents put into the state directly, as
 * the credential store code would), and the cascades of deletes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { T, type CredentialLibraryDoc, type CredentialStoreDoc } from '../../src/services/gateway/domain/docs.js';
import type { Gateway } from '../../src/services/gateway/server.js';
import { gatewayCaller, startDevGateway, type GatewayReply } from './fixture.js';

const RECOVERY = 'recovery-token-for-targets';
const PROJECT = 'p_1234567890';
const ORG = 'o_1234567890';

describe('gateway host catalogs, hosts, host sets and targets', { timeout: 60_000 }, () => {
  let gw: Gateway;
  let base: string;
  const call = gatewayCaller(() => base, { token: RECOVERY });
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await call(method, path, { body, token });
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const fields = (r: GatewayReply) =>
    Object.fromEntries((r.body?.details?.request_fields ?? []).map((f: { description: string; name: string }) => [f.name, f.description]));

  before(async () => {
    ({ gateway: gw, url: base } = await startDevGateway(RECOVERY));
  });
  after(async () => {
    gw.force();
    await gw.shutdown();
  });

  it('creates a static host catalog in a project only, with authorized_collection_actions', async () => {
    const cat = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'servers' });
    assert.match(cat.id, /^hcst_[0-9A-Za-z]{10}$/);
    assert.equal(cat.type, 'static');
    assert.equal(cat.version, 1);
    assert.equal(cat.scope.id, PROJECT);
    assert.equal(cat.scope.type, 'project');
    assert.deepEqual(cat.authorized_actions, ['no-op', 'read', 'update', 'delete']);
    assert.deepEqual(cat.authorized_collection_actions, { 'host-sets': ['create', 'list'], hosts: ['create', 'list'] });
    const inOrg = await call('POST', 'host-catalogs', { body: { scope_id: ORG, type: 'static' } });
    assert.equal(inOrg.status, 400);
    assert.deepEqual(fields(inOrg), { scope_id: 'This field is required to have a properly formatted project scope id.' });
    const noType = await call('POST', 'host-catalogs', { body: { scope_id: PROJECT } });
    assert.deepEqual(fields(noType), { type: 'This is a required field and must be "static" or "plugin".' });
    const project = await ok('GET', `scopes/${PROJECT}`);
    assert.deepEqual(project.authorized_collection_actions['host-catalogs'], ['create', 'list']);
    assert.deepEqual(project.authorized_collection_actions.targets, ['create', 'list']);
    const listed = await ok('GET', `host-catalogs?scope_id=global&recursive=true`);
    assert.ok(listed.items.some((c: { id: string }) => c.id === cat.id));
  });

  it("validates host addresses with the reference's texts and shows host_set_ids", async () => {
    const cat = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'addresses' });
    const h = await ok('POST', 'hosts', { host_catalog_id: cat.id, name: 'db', attributes: { address: ' 10.0.0.5 ' } });
    assert.match(h.id, /^hst_/);
    assert.deepEqual(h.attributes, { address: '10.0.0.5' });
    assert.equal(h.host_catalog_id, cat.id);
    assert.equal(h.type, 'static');
    assert.equal(h.host_set_ids, undefined, 'no sets: left out as the reference does');
    for (const good of ['db.internal.example', '::1', '[fe80::1]', 'localhost']) {
      assert.equal((await call('POST', 'hosts', { body: { host_catalog_id: cat.id, attributes: { address: good } } })).status, 200, good);
    }
    const cases: Array<[unknown, string]> = [
      ['10.0.0.5:22', 'Address for static hosts does not support a port.'],
      ['[::1]:22', 'Address for static hosts does not support a port.'],
      ['ab', 'Address length must be between 3 and 255 characters.'],
      ['not a host!', 'Error parsing address: "not a host!" is neither an IP address nor a DNS name.'],
    ];
    for (const [address, text] of cases) {
      const r = await call('POST', 'hosts', { body: { host_catalog_id: cat.id, attributes: { address } } });
      assert.equal(r.status, 400, String(address));
      assert.deepEqual(fields(r), { 'attributes.address': text }, String(address));
    }
    const missing = await call('POST', 'hosts', { body: { host_catalog_id: cat.id } });
    assert.deepEqual(fields(missing), { 'attributes.address': 'This field is required.' });
    const wrongType = await call('POST', 'hosts', { body: { host_catalog_id: cat.id, type: 'plugin', attributes: { address: '10.1.1.1' } } });
    assert.deepEqual(fields(wrongType), { type: "Doesn't match the parent resource's type." });
    const noCatalog = await call('POST', 'hosts', { body: { host_catalog_id: 'hcst_0000000000', attributes: { address: '10.1.1.1' } } });
    assert.equal(fields(noCatalog).host_catalog_id, 'No such parent resource.');

    const badUpdate = await call('PATCH', `hosts/${h.id}`, { body: { version: 1, attributes: { address: 'db:5432' } } });
    assert.deepEqual(fields(badUpdate), { 'attributes.address': 'Address for static hosts does not support a port.' });
    assert.equal((await ok('GET', `hosts/${h.id}`)).attributes.address, '10.0.0.5', 'the refused update changed nothing');
    const updated = await ok('PATCH', `hosts/${h.id}`, { version: 1, attributes: { address: 'db.example' } });
    assert.equal(updated.attributes.address, 'db.example');
    assert.equal(updated.version, 2);
    const stale = await call('PATCH', `hosts/${h.id}`, { body: { version: 1, name: 'x' } });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.kind, 'FailedPrecondition');

    const set = await ok('POST', 'host-sets', { host_catalog_id: cat.id, name: 'dbs' });
    await ok('POST', `host-sets/${set.id}:add-hosts`, { version: 1, host_ids: [h.id] });
    assert.deepEqual((await ok('GET', `hosts/${h.id}`)).host_set_ids, [set.id]);
    const hosts = await ok('GET', `hosts?host_catalog_id=${cat.id}`);
    assert.equal(hosts.items.length, 5);
  });

  it('host sets hold hosts of their own catalog through add/set/remove-hosts with the version', async () => {
    const a = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'a' });
    const b = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'b' });
    const h1 = await ok('POST', 'hosts', { host_catalog_id: a.id, attributes: { address: '10.0.1.1' } });
    const h2 = await ok('POST', 'hosts', { host_catalog_id: a.id, attributes: { address: '10.0.1.2' } });
    const other = await ok('POST', 'hosts', { host_catalog_id: b.id, attributes: { address: '10.0.2.1' } });
    const set = await ok('POST', 'host-sets', { host_catalog_id: a.id, name: 'web' });
    assert.match(set.id, /^hsst_/);
    assert.deepEqual(set.host_ids, []);
    assert.deepEqual(set.authorized_actions, ['no-op', 'read', 'update', 'delete', 'add-hosts', 'set-hosts', 'remove-hosts']);
    const added = await ok('POST', `host-sets/${set.id}:add-hosts`, { version: 1, host_ids: [h1.id, h2.id] });
    assert.deepEqual(added.host_ids, [h1.id, h2.id]);
    assert.equal(added.version, 2);
    const foreign = await call('POST', `host-sets/${set.id}:add-hosts`, { body: { version: 2, host_ids: [other.id] } });
    assert.equal(foreign.status, 400);
    assert.deepEqual(fields(foreign), { host_ids: `Host "${other.id}" is not in the host set's catalog "${a.id}".` });
    const empty = await call('POST', `host-sets/${set.id}:add-hosts`, { body: { version: 2, host_ids: [] } });
    assert.deepEqual(fields(empty), { host_ids: 'Must be non-empty.' });
    const stale = await call('POST', `host-sets/${set.id}:remove-hosts`, { body: { version: 1, host_ids: [h1.id] } });
    assert.equal(stale.body.kind, 'FailedPrecondition');
    const noVersion = await call('POST', `host-sets/${set.id}:remove-hosts`, { body: { host_ids: [h1.id] } });
    assert.deepEqual(fields(noVersion), { version: 'Existing resource version is required for an update.' });
    const removed = await ok('POST', `host-sets/${set.id}:remove-hosts`, { version: 2, host_ids: [h1.id] });
    assert.deepEqual(removed.host_ids, [h2.id]);
    const replaced = await ok('POST', `host-sets/${set.id}:set-hosts`, { version: 3, host_ids: [h1.id] });
    assert.deepEqual(replaced.host_ids, [h1.id]);
    const sets = await ok('GET', `host-sets?host_catalog_id=${a.id}`);
    assert.deepEqual(
      sets.items.map((s: { id: string }) => s.id),
      [set.id],
    );
  });

  it("creates tcp targets with the reference's defaults and checks every field", async () => {
    const t = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'ssh', attributes: { default_port: 22 } });
    assert.match(t.id, /^ttcp_[0-9A-Za-z]{10}$/);
    assert.equal(t.type, 'tcp');
    assert.deepEqual(t.attributes, { default_port: 22 });
    assert.equal(t.session_max_seconds, 28800);
    assert.equal(t.session_connection_limit, -1);
    assert.deepEqual(t.host_source_ids, []);
    assert.deepEqual(t.host_sources, []);
    assert.deepEqual(t.brokered_credential_sources, []);
    assert.deepEqual(t.authorized_actions, [
      'no-op',
      'read',
      'update',
      'delete',
      'add-host-sources',
      'set-host-sources',
      'remove-host-sources',
      'add-credential-sources',
      'set-credential-sources',
      'remove-credential-sources',
      'authorize-session',
    ]);
    const full = await ok('POST', 'targets', {
      scope_id: PROJECT,
      type: 'tcp',
      name: 'pg',
      attributes: { default_port: 5432, default_client_port: 15432 },
      session_max_seconds: 600,
      session_connection_limit: 2,
      egress_worker_filter: '"dev" in "/tags/env"',
      address: 'pg.internal',
    });
    assert.deepEqual(full.attributes, { default_port: 5432, default_client_port: 15432 });
    assert.equal(full.session_max_seconds, 600);
    assert.equal(full.session_connection_limit, 2);
    assert.equal(full.egress_worker_filter, '"dev" in "/tags/env"');
    assert.equal(full.address, 'pg.internal');

    const bad = await call('POST', 'targets', {
      body: {
        scope_id: ORG,
        type: 'udp',
        attributes: { default_client_port: 70000 },
        session_max_seconds: 0,
        session_connection_limit: 0,
        egress_worker_filter: '"dev" in',
        worker_filter: '"x" in "/tags/y"',
        address: '10.0.0.1:22',
      },
    });
    assert.equal(bad.status, 400);
    const f = fields(bad);
    assert.equal(f.scope_id, 'This field is required to have a properly formatted project scope id.');
    assert.equal(f.type, 'Unknown type provided.');
    assert.equal(f.name, 'This field is required.');
    assert.equal(f['attributes.default_port'], 'This field is required.');
    assert.equal(f['attributes.default_client_port'], 'Value is greater than maximum port number.');
    assert.equal(f.session_max_seconds, 'This must be greater than zero.');
    assert.equal(f.session_connection_limit, 'This must be -1 (unlimited) or greater than zero.');
    assert.match(f.egress_worker_filter, /^Unable to successfully parse egress filter expression/);
    assert.equal(f.worker_filter, 'This field is deprecated. Use egress_worker_filter instead.');
    assert.equal(f.address, 'Address does not support a port.');
    const zero = await call('POST', 'targets', { body: { scope_id: PROJECT, type: 'tcp', name: 'z', attributes: { default_port: 0 } } });
    assert.deepEqual(fields(zero), { 'attributes.default_port': 'This field cannot be set to zero.' });
    const noType = await call('POST', 'targets', { body: { scope_id: PROJECT, name: 'z', attributes: { default_port: 1 } } });
    assert.deepEqual(fields(noType), { type: 'This is a required field.' });
    const dup = await call('POST', 'targets', { body: { scope_id: PROJECT, type: 'tcp', name: 'ssh', attributes: { default_port: 2222 } } });
    assert.equal(dup.status, 400);
    assert.match(dup.body.message, /must be unique/);
    const listed = await ok('GET', `targets?scope_id=${PROJECT}`);
    assert.deepEqual(listed.items.map((x: { name: string }) => x.name).sort(), ['pg', 'ssh']);
    const filtered = await ok('GET', `targets?scope_id=${PROJECT}&filter=${encodeURIComponent('"/item/attributes/default_port" == 22')}`);
    assert.deepEqual(
      filtered.items.map((x: { name: string }) => x.name),
      ['ssh'],
    );
  });

  it('updates targets with the version; name cannot be cleared; address and host sources exclude each other', async () => {
    const cat = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'for targets' });
    const set = await ok('POST', 'host-sets', { host_catalog_id: cat.id });
    const t = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'web', attributes: { default_port: 80 } });
    const u = await ok('PATCH', `targets/${t.id}`, {
      version: 1,
      attributes: { default_client_port: 8080 },
      session_connection_limit: 5,
      egress_worker_filter: '"/name" == "w1"',
    });
    assert.deepEqual(u.attributes, { default_port: 80, default_client_port: 8080 });
    assert.equal(u.session_connection_limit, 5);
    assert.equal(u.version, 2);
    const clearName = await call('PATCH', `targets/${t.id}`, { body: { version: 2, name: '' } });
    assert.deepEqual(fields(clearName), { name: 'This field cannot be set to empty.' });
    const stale = await call('PATCH', `targets/${t.id}`, { body: { version: 1, description: 'x' } });
    assert.equal(stale.body.kind, 'FailedPrecondition');
    const cleared = await ok('PATCH', `targets/${t.id}`, { version: 2, egress_worker_filter: null, attributes: { default_client_port: null } });
    assert.equal(cleared.egress_worker_filter, undefined);
    assert.deepEqual(cleared.attributes, { default_port: 80 });

    const withSet = await ok('POST', `targets/${t.id}:add-host-sources`, { version: 3, host_source_ids: [set.id] });
    assert.deepEqual(withSet.host_source_ids, [set.id]);
    assert.deepEqual(withSet.host_sources, [{ id: set.id, host_catalog_id: cat.id }]);
    const addr = await call('PATCH', `targets/${t.id}`, { body: { version: 4, address: '10.9.9.9' } });
    assert.deepEqual(fields(addr), { address: 'Unable to set address because one or more host sources is assigned to the given target.' });
    const none = await ok('POST', `targets/${t.id}:set-host-sources`, { version: 4 });
    assert.deepEqual(none.host_source_ids, []);
    const direct = await ok('PATCH', `targets/${t.id}`, { version: 5, address: '10.9.9.9' });
    assert.equal(direct.address, '10.9.9.9');
    const refused = await call('POST', `targets/${t.id}:add-host-sources`, { body: { version: 6, host_source_ids: [set.id] } });
    assert.deepEqual(fields(refused), { host_source_ids: 'Unable to add host sources because a network address is directly assigned to the given target.' });
    const unknown = await call('POST', `targets/${t.id}:set-host-sources`, { body: { version: 6, host_source_ids: ['hsst_0000000000'] } });
    assert.deepEqual(fields(unknown), { host_source_ids: 'Host set "hsst_0000000000" does not exist.' });
    assert.equal((await ok('GET', `targets/${t.id}`)).version, 6, 'the refused actions changed nothing');
    const noAddress = await ok('PATCH', `targets/${t.id}`, { version: 6, address: '' });
    assert.equal(noAddress.address, undefined, 'an empty address clears it');
    assert.deepEqual((await ok('POST', `targets/${t.id}:add-host-sources`, { version: 7, host_source_ids: [set.id] })).host_source_ids, [set.id]);
  });

  it('refuses host sets of another project', async () => {
    const otherProject = await ok('POST', 'scopes', { scope_id: ORG, name: 'other project' });
    const cat = await ok('POST', 'host-catalogs', { scope_id: otherProject.id, type: 'static' });
    const set = await ok('POST', 'host-sets', { host_catalog_id: cat.id });
    const t = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'cross', attributes: { default_port: 1 } });
    const r = await call('POST', `targets/${t.id}:add-host-sources`, { body: { version: 1, host_source_ids: [set.id] } });
    assert.deepEqual(fields(r), { host_source_ids: `Host set "${set.id}" is not in a host catalog of the target's project "${PROJECT}".` });
  });

  it('attaches brokered credential sources of the same project', async () => {
    const now = new Date().toISOString();
    const stamp = { created_time: now, updated_time: now, version: 1 };
    const store: CredentialStoreDoc = { id: 'csvlt_TestStore1', scope_id: PROJECT, type: 'vault', attributes: { address: 'http://127.0.0.1:8200' }, ...stamp };
    const lib: CredentialLibraryDoc = {
      id: 'clvlt_TestLib001',
      scope_id: PROJECT,
      credential_store_id: store.id,
      type: 'vault-generic',
      attributes: { path: 'secret/data/db', http_method: 'GET' },
      ...stamp,
    };
    const foreignStore: CredentialStoreDoc = { ...store, id: 'csvlt_TestStore2', scope_id: 'p_elsewhere0' };
    const foreignLib: CredentialLibraryDoc = { ...lib, id: 'clvlt_TestLib002', scope_id: undefined, credential_store_id: foreignStore.id };
    await gw.domain!.state.txn((tx) => {
      tx.put(T.credentialStores, store.id, store);
      tx.put(T.credentialStores, foreignStore.id, foreignStore);
      tx.put(T.credentialLibraries, lib.id, lib);
      tx.put(T.credentialLibraries, foreignLib.id, foreignLib);
    });
    const t = await ok('POST', 'targets', { scope_id: PROJECT, type: 'tcp', name: 'with creds', attributes: { default_port: 5432 } });
    const added = await ok('POST', `targets/${t.id}:add-credential-sources`, { version: 1, brokered_credential_source_ids: [lib.id] });
    assert.deepEqual(added.brokered_credential_source_ids, [lib.id]);
    assert.deepEqual(added.brokered_credential_sources, [{ id: lib.id, credential_store_id: store.id }]);
    const empty = await call('POST', `targets/${t.id}:add-credential-sources`, { body: { version: 2 } });
    assert.deepEqual(fields(empty), { brokered_credential_source_ids: 'Brokered Credential Source IDs must be provided.' });
    const foreign = await call('POST', `targets/${t.id}:add-credential-sources`, { body: { version: 2, brokered_credential_source_ids: [foreignLib.id] } });
    assert.deepEqual(fields(foreign), {
      brokered_credential_source_ids: `Credential source "${foreignLib.id}" is not in a credential store of the target's project "${PROJECT}".`,
    });
    const missing = await call('POST', `targets/${t.id}:set-credential-sources`, {
      body: { version: 2, brokered_credential_source_ids: ['clvlt_0000000000'] },
    });
    assert.deepEqual(fields(missing), { brokered_credential_source_ids: 'Credential source "clvlt_0000000000" is not a credential library or a credential.' });
    const removed = await ok('POST', `targets/${t.id}:remove-credential-sources`, { version: 2, brokered_credential_source_ids: [lib.id] });
    assert.deepEqual(removed.brokered_credential_source_ids, []);
  });

  it('a role with ids=*;type=target;actions=read sees targets but cannot update them', async () => {
    await ok('POST', 'accounts', { auth_method_id: 'ampw_1234567890', attributes: { login_name: 'reader', password: 'reader-password' } });
    const acct = (await ok('GET', 'accounts?auth_method_id=ampw_1234567890')).items.find(
      (a: { attributes: { login_name: string } }) => a.attributes.login_name === 'reader',
    );
    const user = await ok('POST', 'users', { scope_id: 'global', name: 'reader' });
    await ok('POST', `users/${user.id}:add-accounts`, { version: 1, account_ids: [acct.id] });
    const role = await ok('POST', 'roles', { scope_id: PROJECT, name: 'target readers' });
    await ok('POST', `roles/${role.id}:add-principals`, { version: 1, principal_ids: [user.id] });
    await ok('POST', `roles/${role.id}:add-grants`, { version: 2, grant_strings: ['ids=*;type=target;actions=read', 'type=target;actions=list'] });
    const login = await ok('POST', 'auth-methods/ampw_1234567890:authenticate', { attributes: { login_name: 'reader', password: 'reader-password' } });
    const token = login.attributes.token as string;

    const list = await call('GET', `targets?scope_id=${PROJECT}`, { token });
    assert.equal(list.status, 200);
    assert.ok(list.body.items.length >= 1);
    assert.ok(list.body.items.every((x: { authorized_actions: string[] }) => JSON.stringify(x.authorized_actions) === '["read"]'));
    const t = list.body.items[0];
    const read = await call('GET', `targets/${t.id}`, { token });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.authorized_actions, ['read']);
    const upd = await call('PATCH', `targets/${t.id}`, { token, body: { version: t.version, description: 'mine' } });
    assert.equal(upd.status, 403);
    assert.deepEqual(upd.body, { kind: 'PermissionDenied', message: 'Forbidden.' });
    assert.equal(
      (await call('POST', 'targets', { token, body: { scope_id: PROJECT, type: 'tcp', name: 'nope', attributes: { default_port: 1 } } })).status,
      403,
    );
    assert.equal((await call('GET', `host-catalogs?scope_id=${PROJECT}`, { token })).status, 403, 'target grants give nothing on host catalogs');

    // A grant that names authorize-session lists it in authorized_actions.
    await ok('POST', `roles/${role.id}:add-grants`, { version: 3, grant_strings: [`ids=${t.id};actions=authorize-session`] });
    assert.deepEqual((await call('GET', `targets/${t.id}`, { token })).body.authorized_actions, ['read', 'authorize-session']);
    // A catalog-pinned grant: read hosts of one catalog only.
    const cat = await ok('POST', 'host-catalogs', { scope_id: PROJECT, type: 'static', name: 'pinned' });
    const h = await ok('POST', 'hosts', { host_catalog_id: cat.id, attributes: { address: '10.7.7.7' } });
    await ok('POST', `roles/${role.id}:add-grants`, { version: 4, grant_strings: [`ids=${cat.id};type=host;actions=read,list`] });
    assert.equal((await call('GET', `hosts/${h.id}`, { token })).status, 200);
    assert.equal((await call('GET', `hosts?host_catalog_id=${cat.id}`, { token })).status, 200);
    assert.equal((await call('DELETE', `hosts/${h.id}`, { token })).status, 403);
  });

  it('deleting a host leaves its sets, a host set leaves targets, a catalog takes its hosts and sets, a project its catalogs and targets', async () => {
    const project = await ok('POST', 'scopes', { scope_id: ORG, name: 'doomed project' });
    const cat = await ok('POST', 'host-catalogs', { scope_id: project.id, type: 'static' });
    const h1 = await ok('POST', 'hosts', { host_catalog_id: cat.id, attributes: { address: '10.3.3.1' } });
    const h2 = await ok('POST', 'hosts', { host_catalog_id: cat.id, attributes: { address: '10.3.3.2' } });
    const s1 = await ok('POST', 'host-sets', { host_catalog_id: cat.id });
    const s2 = await ok('POST', 'host-sets', { host_catalog_id: cat.id });
    await ok('POST', `host-sets/${s1.id}:set-hosts`, { version: 1, host_ids: [h1.id, h2.id] });
    const t = await ok('POST', 'targets', { scope_id: project.id, type: 'tcp', name: 't', attributes: { default_port: 22 } });
    await ok('POST', `targets/${t.id}:set-host-sources`, { version: 1, host_source_ids: [s1.id, s2.id] });

    assert.equal((await call('DELETE', `hosts/${h1.id}`)).status, 204);
    const s1After = await ok('GET', `host-sets/${s1.id}`);
    assert.deepEqual(s1After.host_ids, [h2.id]);
    assert.equal(s1After.version, 3, "losing a host raises the set's version");
    assert.equal((await call('DELETE', `host-sets/${s2.id}`)).status, 204);
    assert.deepEqual((await ok('GET', `targets/${t.id}`)).host_source_ids, [s1.id]);
    assert.equal((await call('DELETE', `host-catalogs/${cat.id}`)).status, 204);
    assert.equal((await call('GET', `hosts/${h2.id}`)).status, 404);
    assert.equal((await call('GET', `host-sets/${s1.id}`)).status, 404);
    const tAfter = await ok('GET', `targets/${t.id}`);
    assert.deepEqual(tAfter.host_source_ids, []);
    assert.deepEqual(tAfter.host_sources, []);

    const cat2 = await ok('POST', 'host-catalogs', { scope_id: project.id, type: 'static' });
    assert.equal((await call('DELETE', `scopes/${project.id}`)).status, 204);
    assert.equal((await call('GET', `targets/${t.id}`)).status, 404);
    assert.equal((await call('GET', `host-catalogs/${cat2.id}`)).status, 404);
  });
});
