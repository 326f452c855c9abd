/**
 * Hostile input to the gateway controller's API (issue 14 item 2): a body nested past the
 * kernel's JSON limit (a target's `host_id`, unknown fields) is a 400 in the API's
 * `{"kind","message"}` style before anything else, nothing is authorised, and the valid
 * request after it works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { putProject, putTarget } from './target-fixture.js';

const TOKEN = 'hostile-input-token';
const listener = (purpose: string) => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`;
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('gateway API: hostile input', () => {
  let controller: Gateway;
  let api: string;
  let targetId: string;
  const post = (path: string, body: string) =>
    fetch(`${api}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` }, body }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  /** The sessions' items (the list's `list_token` changes with time). */
  const sessions = async () =>
    ((await (await fetch(`${api}/v1/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as { items: unknown[] }).items;

  before(async () => {
    controller = await startGateway({
      config: parseGatewayServerConfig(`controller {\n  auth_token = "${TOKEN}"\n}\n${listener('api')}${listener('cluster')}`, 'c.hcl'),
      log: silentLogger(),
    });
    api = controller.listeners.find((l) => l.purpose === 'api')!.url;
    const { projectId } = await putProject(controller.domain!);
    ({ targetId } = await putTarget(controller.domain!, { projectId, port: 1 }));
  });
  after(() => controller.shutdown());

  it('refuses bodies nested past 128 levels, and the request after them works', async () => {
    const before = await sessions();
    for (const body of [`{"host_id":${deepArray(2500)}}`, `{"x":{"a":${deepArray(3000)}}}`]) {
      const r = await post(`/v1/targets/${targetId}:authorize-session`, body);
      assert.equal(r.status, 400);
      assert.deepEqual(JSON.parse(r.text), { kind: 'InvalidArgument', message: 'Error parsing request body: JSON input exceeds allowed nesting depth (128)' });
    }
    assert.deepEqual(await sessions(), before);
    // The next request is judged on its own: no worker is active, so 503.
    const next = await post(`/v1/targets/${targetId}:authorize-session`, '{}');
    assert.equal(next.status, 503, next.text);
  });
});
