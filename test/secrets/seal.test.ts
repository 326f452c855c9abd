/**
 * The seal lifecycle over HTTP (reference/secrets.md §1.7, §3.1–§3.4, §7): init 5/3,
 * unseal with any 3 shares, wrong share, reset, seal again, restart; the barrier keeps
 * values, tokens and passwords out of the SQLite files (rows and raw bytes); sys/health
 * codes and overrides.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startSealedServer } from '../helpers.js';

describe('seal lifecycle', () => {
  it('init 5/3, unseal with shares in any order, wrong share, reset, seal, restart', async () => {
    const s = await startSealedServer();
    let reopened: Awaited<ReturnType<typeof startSealedServer>> | undefined;
    try {
      assert.deepEqual((await s.call('GET', '/v1/sys/init')).json, { initialized: false });
      const h0 = await s.call('GET', '/v1/sys/health');
      assert.equal(h0.status, 501);
      assert.equal(h0.json.initialized, false);
      const sealed0 = await s.call('GET', '/v1/secret/data/x', { token: 'anything' });
      assert.equal(sealed0.status, 503);
      assert.deepEqual(sealed0.json, { errors: ['secrets service is sealed'] });

      for (const [body, message] of [
        [{ secret_shares: 0, secret_threshold: 1 }, /shares must be at least one/],
        [{ secret_shares: 3, secret_threshold: 4 }, /threshold cannot be larger than shares/],
        [{ secret_shares: 5, secret_threshold: 1 }, /threshold must be greater than one for multiple shares/],
        [{ secret_shares: 300, secret_threshold: 3 }, /shares must be less than 256/],
        [{ secret_shares: 'five', secret_threshold: 3 }, /secret_shares/],
        [{ secret_threshold: 3 }, /missing required field "secret_shares"/],
      ] as const) {
        const r = await s.call('PUT', '/v1/sys/init', { body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.match(r.json.errors[0], message);
      }
      assert.deepEqual((await s.call('GET', '/v1/sys/init')).json, { initialized: false }, 'refused inits changed nothing');

      const init = await s.call('PUT', '/v1/sys/init', { body: { secret_shares: 5, secret_threshold: 3 } });
      assert.equal(init.status, 200);
      const { keys, keys_base64, root_token } = init.json as { keys: string[]; keys_base64: string[]; root_token: string };
      assert.equal(keys.length, 5);
      assert.equal(keys_base64.length, 5);
      assert.ok(root_token);
      assert.equal((await s.call('PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } })).status, 400);

      let st = (await s.call('GET', '/v1/sys/seal-status')).json;
      assert.deepEqual([st.initialized, st.sealed, st.t, st.n, st.progress, st.type], [true, true, 3, 5, 0, 'shamir']);
      assert.equal((await s.call('GET', '/v1/sys/health')).status, 503);
      assert.equal((await s.call('GET', '/v1/sys/mounts', { token: root_token })).status, 503);

      // Wrong share: two good ones and a well-formed impostor.
      await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[0] } });
      await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[1] } });
      const bad = await s.call('PUT', '/v1/sys/unseal', { body: { key: randomBytes(33).toString('hex') } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.json, { errors: ['unseal failed, invalid key'] });
      assert.equal((await s.call('GET', '/v1/sys/seal-status')).json.progress, 0);

      // Reset, and a repeated share does not count twice.
      assert.equal((await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[4] } })).json.progress, 1);
      assert.equal((await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[4] } })).json.progress, 1);
      assert.equal((await s.call('PUT', '/v1/sys/unseal', { body: { reset: true } })).json.progress, 0);
      assert.equal((await s.call('PUT', '/v1/sys/unseal', { body: {} })).status, 400);
      assert.equal((await s.call('PUT', '/v1/sys/unseal', { body: { key: 'not a key!' } })).status, 400);

      // Any three, in any order, hex or base64.
      st = (await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[3] } })).json;
      assert.equal(st.progress, 1);
      assert.notEqual(st.nonce, '');
      st = (await s.call('PUT', '/v1/sys/unseal', { body: { key: keys_base64[0] } })).json;
      assert.equal(st.progress, 2);
      st = (await s.call('PUT', '/v1/sys/unseal', { body: { key: keys[2] } })).json;
      assert.equal(st.sealed, false);
      assert.equal(st.progress, 0);
      assert.ok(st.cluster_id);
      assert.equal((await s.call('GET', '/v1/sys/health')).status, 200);

      // Use it: mount, write; then seal and check everything answers 503.
      await s.call('POST', '/v1/sys/mounts/secret', { token: root_token, body: { type: 'kv-v2' } });
      const secretValue = 'correct-horse-battery-staple-' + randomBytes(4).toString('hex');
      assert.equal((await s.call('POST', '/v1/secret/data/app', { token: root_token, body: { data: { password: secretValue } } })).status, 200);
      await s.call('POST', '/v1/sys/mounts/old', { token: root_token, body: { type: 'kv' } });
      await s.call('POST', '/v1/old/app', { token: root_token, body: { password: secretValue } });
      const child = (await s.call('POST', '/v1/auth/token/create', { token: root_token, body: { policies: ['default'] } })).json.auth.client_token;
      const password = 'pw-in-clear-' + randomBytes(4).toString('hex');
      await s.call('POST', '/v1/sys/auth/userpass', { token: root_token, body: { type: 'userpass' } });
      assert.equal((await s.call('POST', '/v1/auth/userpass/users/alice', { token: root_token, body: { password } })).status, 204);
      const login = await s.call('POST', '/v1/auth/userpass/login/alice', { body: { password } });
      assert.equal(login.status, 200);
      const loginToken = login.json.auth.client_token as string;
      assert.equal((await s.call('PUT', '/v1/sys/seal', { token: child })).status, 403, 'sealing needs root or sudo');
      assert.equal((await s.call('PUT', '/v1/sys/seal', { token: root_token })).status, 204);
      assert.equal((await s.call('GET', '/v1/secret/data/app', { token: root_token })).status, 503);
      assert.equal((await s.call('GET', '/v1/no/such/path', { token: root_token })).status, 503, 'sealed check precedes routing');

      // The storage holds none of it in clear: neither a row nor any byte of the files.
      const needles = [secretValue, password, root_token, child, loginToken, ...keys, ...keys_base64];
      const db = new Database(s.dbPath, { readonly: true });
      const rows = db.prepare('SELECT k, v FROM kv').all() as { k: string; v: Buffer }[];
      db.close();
      assert.ok(rows.length > 10, 'the scan sees the stored entries');
      for (const { k, v } of rows) {
        for (const needle of needles) assert.ok(!Buffer.from(v).includes(needle) && !k.includes(needle), `"${k}" leaks a secret`);
      }
      const files = [s.dbPath, `${s.dbPath}-wal`, `${s.dbPath}-shm`].filter(existsSync);
      for (const file of files) {
        const bytes = readFileSync(file);
        for (const needle of needles) assert.ok(!bytes.includes(needle), `${file} holds ${needle} in clear`);
      }

      // Restart: sealed again; unseal; data is back.
      await s.service.close();
      reopened = await startSealedServer({ dbPath: s.dbPath });
      assert.equal((await reopened.call('GET', '/v1/sys/seal-status')).json.sealed, true);
      for (const k of [keys[1], keys[2], keys[4]]) await reopened.call('PUT', '/v1/sys/unseal', { body: { key: k } });
      const back = await reopened.call('GET', '/v1/secret/data/app', { token: root_token });
      assert.equal(back.json.data.data.password, secretValue);
    } finally {
      if (reopened) await reopened.close();
      else await s.close();
    }
  });
});

describe('sys/health', () => {
  it('answers every state with a JSON body and honours the code overrides', async () => {
    const s = await startSealedServer();
    try {
      assert.equal((await s.call('GET', '/v1/sys/health?uninitcode=200')).status, 200);
      const init = (await s.call('PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } })).json;
      const sealed = await s.call('GET', '/v1/sys/health?sealedcode=299');
      assert.equal(sealed.status, 299);
      assert.equal(sealed.json.sealed, true);
      assert.equal(sealed.json.cluster_id, undefined);
      await s.call('PUT', '/v1/sys/unseal', { body: { key: init.keys[0] } });
      const ok = await s.call('GET', '/v1/sys/health?standbyok=true&perfstandbyok=true');
      assert.equal(ok.status, 200);
      assert.deepEqual(
        [ok.json.initialized, ok.json.sealed, ok.json.standby, ok.json.performance_standby, ok.json.replication_dr_mode],
        [true, false, false, false, 'disabled'],
      );
      assert.equal(typeof ok.json.server_time_utc, 'number');
      assert.equal((await s.call('GET', '/v1/sys/health?activecode=204')).status, 204);
      const head = await s.call('HEAD', '/v1/sys/health');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      const badCode = await s.call('GET', '/v1/sys/health?activecode=abc');
      assert.equal(badCode.status, 400);
      assert.match(badCode.json.errors[0], /activecode/);
      assert.equal((await s.call('DELETE', '/v1/sys/health')).status, 405);
      assert.deepEqual((await s.call('GET', '/v1/sys/leader')).json.ha_enabled, false);
    } finally {
      await s.close();
    }
  });
});
