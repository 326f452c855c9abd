/**
 * The secrets service driven by the reference product's own client library (issue 32 item
 * 7; reference/clients.md "Secrets service clients"): Debian's `python3-hvac` (0.11) run as
 * `/usr/bin/python3 test/secrets/testdata/python_hvac_client.py`, printing JSON of what
 * each call returned. It talks to a loopback proxy that renames `X-Vault-*` headers to
 * Cairn's `X-Secrets-*` and back (vault-header-proxy.ts) in front of a real secrets
 * service (SQLite, unsealed, KV v2 at `secret/`), with the root token. Covered: KV v2
 * (create, check-and-set, versions, delete/undelete/destroy, metadata, list), tokens
 * (create/lookup/renew/revoke, renew, lookup and revoke by accessor), AppRole (role, role ID,
 * secret ID, login, a used-up secret ID), audit (a file device enabled and listed),
 * response wrapping (wrap, lookup, unwrap, a second unwrap) and leases (the lease of a read
 * from a `leased_passthrough` KV v1 mount: lookup, list, renew, revoke). The values are
 * the ones hvac returns; a refusal is the hvac exception class and the reference's errors.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers.js';
import { startVaultHeaderProxy, type VaultHeaderProxy } from './vault-header-proxy.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'testdata', 'python_hvac_client.py');

describe('python3-hvac through a header-renaming proxy', () => {
  let s: TestServer;
  let proxy: VaultHeaderProxy;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-hvac-'));
  const auditFile = join(dir, 'audit.log');
  /** What the script printed: one entry per call it made. */
  let out: Record<string, unknown>;

  before(async () => {
    s = await startTestServer();
    proxy = await startVaultHeaderProxy(s.url);
    // python3-hvac is installed by .ci/run: a script that cannot run fails the suite, never skips it.
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROXY_PORT: String(proxy.port), SECRETS_TOKEN: s.rootToken, AUDIT_FILE: auditFile },
      timeout: 60_000,
    });
    out = JSON.parse(stdout) as Record<string, unknown>;
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('KV v2: versions with check-and-set, delete and undelete, destroy, metadata, list, delete of all versions', () => {
    assert.deepEqual(pick(out.kv_created, ['version', 'destroyed', 'deletion_time']), { version: 1, destroyed: false, deletion_time: '' });
    assert.equal((out.kv_updated as { version: number }).version, 2);
    assert.deepEqual(out.kv_cas_refused, ['InvalidRequest', ['check-and-set parameter did not match the current version']]);
    assert.deepEqual(out.kv_read, { data: { password: 'p2' }, version: 2 });
    assert.deepEqual(out.kv_read_v1, { password: 'p1' });
    assert.deepEqual(out.kv_read_deleted, ['InvalidPath', null], 'a deleted latest version is a 404 hvac raises as InvalidPath');
    assert.deepEqual(out.kv_undeleted, { password: 'p2' });
    assert.deepEqual(out.kv_metadata, {
      current_version: 2,
      max_versions: 5,
      cas_required: true,
      versions: { '1': { destroyed: true, deleted: true }, '2': { destroyed: false, deleted: false } },
    });
    assert.deepEqual(out.kv_cas_required, ['InvalidRequest', ['check-and-set parameter required for this call']]);
    assert.deepEqual(out.kv_list, ['db']);
    assert.deepEqual(out.kv_gone, ['InvalidPath', []], 'gone: the plain 404 {"errors":[]}');
  });

  it('tokens: create, lookup, renew, renew and lookup by accessor, revoke, revoke by accessor', () => {
    assert.deepEqual(out.token_created, { policies: ['default'], lease_duration: 3600, renewable: true, metadata: { app: 'hvac' } });
    assert.deepEqual(out.token_lookup, { id_matches: true, accessor_matches: true, policies: ['default'], creation_ttl: 3600, meta: { app: 'hvac' } });
    assert.equal(out.token_renewed, 7200);
    assert.deepEqual(out.token_renewed_by_accessor, { client_token: '', lease_duration: 10800 });
    assert.deepEqual(out.token_lookup_accessor, { id: '', policies: ['default'], accessor_matches: true });
    assert.deepEqual(out.token_revoked_lookup, ['Forbidden', ['bad token']]);
    assert.deepEqual(out.token_revoked_by_accessor, ['InvalidRequest', ['invalid accessor']]);
  });

  it('AppRole: a role, its role ID and a secret ID log in once with the role token settings', () => {
    assert.deepEqual(out.approle_role, { token_policies: ['default'], token_ttl: 1200, secret_id_num_uses: 1 });
    assert.deepEqual(out.approle_secret_id_fields, ['secret_id', 'secret_id_accessor']);
    assert.deepEqual(out.approle_login, { policies: ['default'], lease_duration: 1200, metadata: { role_name: 'app' } });
    assert.deepEqual(out.approle_login_token_works, { role_name: 'app' });
    assert.deepEqual(out.approle_secret_id_used_up, ['InvalidRequest', ['invalid role or secret ID']]);
  });

  it('audit: a file device is enabled, listed, and written to', () => {
    assert.deepEqual(out.audit_devices, { 'file/': { type: 'file', description: 'hvac', file_path: auditFile } });
    assert.ok(existsSync(auditFile) && readFileSync(auditFile, 'utf8').includes('"sys/audit"'), 'the device logs the requests that follow');
  });

  it('response wrapping: wrap, lookup, unwrap once', () => {
    assert.deepEqual(out.wrap_info, { ttl: 90, creation_path: 'sys/wrapping/wrap', has_token: true });
    assert.deepEqual(out.wrap_lookup, { creation_ttl: 90, creation_path: 'sys/wrapping/wrap' });
    assert.deepEqual(out.unwrapped, { secret: 's3' });
    assert.deepEqual(out.unwrap_again, ['InvalidRequest', ['wrapping token is not valid or does not exist']]);
  });

  it('leases: the lease of a leased KV v1 read is looked up, listed, renewed and revoked', () => {
    assert.deepEqual(out.lease_read, { lease_id_prefix: true, lease_duration: 3600, renewable: true, data: { password: 'p', ttl: '1h' } });
    assert.deepEqual(out.lease_lookup, { id_matches: true, renewable: true, ttl_ok: true });
    assert.equal(out.lease_list, true, 'the listing under the prefix is the lease');
    assert.deepEqual(out.lease_renewed, { id_matches: true, lease_duration: 1800, renewable: true });
    assert.deepEqual(out.lease_revoked_lookup, ['InvalidRequest', ['invalid lease']]);
  });
});

/** The `keys` of `o` (an object the script printed). */
function pick(o: unknown, keys: readonly string[]): Record<string, unknown> {
  const r = o as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, r[k]]));
}
