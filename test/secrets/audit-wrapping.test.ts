/**
 * Audit devices with response wrapping (issue 17 "Tests": a secret written, read, wrapped
 * and unwrapped never appears in clear in the audit file). The wrapping token, its
 * accessor and the unwrapped secret reach the file only as `hmac-sha256:<hex>`, and the
 * HMACs are the ones `sys/audit-hash` gives for them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

const SECRET = 'wrapped-and-audited-s3cret';

describe('audit devices and response wrapping', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'cairn-audit-wrap-'));
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a secret written, read wrapped and unwrapped never appears in clear; the wrapping token is hashed', async () => {
    const file = join(dir, 'audit.log');
    assert.equal((await s.call('PUT', '/v1/sys/audit/file', { body: { type: 'file', options: { file_path: file } } })).status, 204);
    assert.equal((await s.call('POST', '/v1/secret/data/app/db', { body: { data: { password: SECRET } } })).status, 200);

    const wrapped = await s.call('GET', '/v1/secret/data/app/db', { headers: { 'X-Secrets-Wrap-TTL': '5m' } });
    assert.equal(wrapped.status, 200);
    assert.equal(wrapped.json.data, null, 'a wrapped reply holds only wrap_info');
    const { token: wrapToken, accessor: wrapAccessor } = wrapped.json.wrap_info;
    assert.ok(wrapToken && wrapAccessor);

    const unwrapped = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: wrapToken });
    assert.equal(unwrapped.status, 200);
    assert.equal(unwrapped.json.data.data.password, SECRET);

    const text = readFileSync(file, 'utf8');
    for (const [what, value] of [
      ['the secret', SECRET],
      ['the wrapping token', wrapToken],
      ['the root token', s.rootToken],
    ] as const)
      assert.equal(text.includes(value), false, `${what} never appears in clear`);

    const hash = async (input: string): Promise<string> => (await s.call('PUT', '/v1/sys/audit-hash/file', { body: { input } })).json.data.hash;
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const wrapResp = lines.find((e) => e.type === 'response' && e.request.path === 'secret/data/app/db' && e.response?.wrap_info);
    assert.ok(wrapResp, 'the wrapped read is logged with its wrap_info');
    assert.equal(wrapResp.response.wrap_info.token, await hash(wrapToken));
    assert.equal(wrapResp.response.wrap_info.accessor, await hash(wrapAccessor));
    const unwrapResp = lines.find((e) => e.type === 'response' && e.request.path === 'sys/wrapping/unwrap');
    assert.ok(unwrapResp, 'the unwrap is logged');
    assert.equal(unwrapResp.request.client_token, await hash(wrapToken));
    assert.ok(JSON.stringify(unwrapResp.response).includes(await hash(SECRET)), 'the unwrapped secret is logged as its HMAC');
  });
});
