/**
 * The web UI on production servers (issue 18), in Chromium:
 *
 * - a gateway controller with `ui { enabled = true }` serves the gateway section on its api
 *   listener; logging in with its bearer token opens the workers screen, which shows the
 *   worker's upstream details (address, state, last status, sessions, release version);
 * - a `cairn secrets server` with `ui = true`, `require_request_header = true` on its
 *   listener and `ui_services { mesh = "<agent>" }`: the UI's pages load without the
 *   header (a browser navigation cannot send it), its API calls carry it, and the
 *   discovery section appears and reaches the agent through `/ui/proxy/mesh/`;
 * - two HA secrets servers on one PostgreSQL table: the HA screen lists the active server
 *   and the standby (`sys/ha-status`).
 *
 * Every screen passes axe with no critical or serious finding and logs no console error.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { VERSION } from '../../src/kernel/version/index.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway } from '../../src/services/gateway/server.js';
import { call } from '../helpers.js';
import { startAgent as startMeshAgent, call as meshCall } from '../mesh/helpers.js';
import { ROOT } from '../sched/helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from '../secrets/testdata/ha-servers.js';
import { axeCheck, launchBrowser, newPage, openSecrets, shoot } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-ui-prod-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Signs in at `url` (a `/ui/` page) with `token` and waits for `heading`. */
async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', exact: true }).waitFor();
  await openSecrets(page);
}

/** `PUT sys/init` and `sys/unseal` (1 share) on `url`, with the request header; the root token and key. */
async function initAndUnseal(url: string): Promise<{ root: string; key: string }> {
  const headers = { 'X-Secrets-Request': 'true' };
  const init = await call(url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 }, headers });
  assert.equal(init.status, 200, init.text);
  const unseal = await call(url, 'PUT', '/v1/sys/unseal', { body: { key: init.json.keys[0] }, headers });
  assert.equal(unseal.status, 200, unseal.text);
  return { root: init.json.root_token, key: init.json.keys[0] };
}

describe('web UI on production servers', { timeout: 240_000 }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('a gateway controller with ui { enabled = true } serves its section; the workers screen shows the upstream details', async (t) => {
    const token = 'gw-ui-token-' + randomBytes(6).toString('hex');
    const config = parseGatewayServerConfig(
      `controller {
  name       = "c-ui"
  auth_token = "${token}"
}
worker { name = "w-ui" }
listener "tcp" {
  purpose     = "api"
  address     = "127.0.0.1:0"
  tls_disable = true
}
listener "tcp" {
  purpose = "cluster"
  address = "127.0.0.1:0"
}
listener "tcp" {
  purpose = "proxy"
  address = "127.0.0.1:0"
}
ui { enabled = true }
`,
      'gateway.hcl',
    );
    const gateway = await startGateway({ config, log: silentLogger(), statusIntervalMs: 200 });
    t.after(() => gateway.shutdown());
    const api = gateway.listeners.find((l) => l.purpose === 'api')!.url;
    const proxy = gateway.listeners.find((l) => l.purpose === 'proxy')!.url;
    assert.deepEqual(await (await fetch(`${api}/ui/config.json`)).json(), { sections: { gateway: '' } });
    await until('the worker reported', 10_000, async () => {
      const res = await fetch(`${api}/v1/workers`, { headers: { Authorization: `Bearer ${token}` } });
      const items = ((await res.json()) as { items: Array<{ state: string }> }).items;
      return items.some((w) => w.state === 'active') ? true : undefined;
    });

    const { page, errors } = await newPage(browser, [
      { status: 401, method: 'GET', path: /^\/v1\/workers$/, why: 'a wrong token is refused on purpose at login' },
    ]);
    await page.goto(`${api}/ui/`);
    await page.getByRole('textbox', { name: 'Token' }).fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Unauthenticated' }).waitFor();
    await page.getByRole('textbox', { name: 'Token' }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The overview shows the gateway's card only, read with the login token.
    await page
      .getByTestId('card-gateway')
      .getByText(/1 workers; 0 active sessions/)
      .waitFor();
    assert.equal(await page.getByTestId('card-secrets').count(), 0);
    await page.getByRole('link', { name: 'Workers and sessions' }).click();
    await page.getByRole('heading', { name: 'Workers' }).waitFor();
    // The login token is the gateway's: no second token form.
    assert.equal(await page.getByLabel('Gateway API token').count(), 0);
    const row = page.getByTestId('workers').getByRole('row').filter({ hasText: 'w-ui' });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    assert.equal(cells[0], 'w-ui');
    assert.equal(cells[1], proxy);
    assert.equal(cells[2], 'active');
    assert.equal(cells[3], '0');
    assert.ok(!Number.isNaN(Date.parse(cells[4])) || cells[4].length > 0, `last status "${cells[4]}"`);
    assert.equal(cells[5], `Cairn v${VERSION}`);
    assert.equal(await page.getByRole('link', { name: 'Secrets' }).count(), 0);
    await axeCheck(page, 'gateway server UI');
    await shoot(page, '40-gateway-server-ui');
    assert.deepEqual(errors, []);
  });

  it('a secrets server with require_request_header and ui_services { mesh } loads the UI and reaches the discovery section', async (t) => {
    const agent = await startMeshAgent({ initialManagement: ROOT }, { ui: false });
    t.after(() => agent.stop());
    const meshAddress = new URL(agent.url).host;
    const reg = await meshCall(agent.url, 'PUT', '/v1/agent/service/register', { token: ROOT, body: { Name: 'billing', Port: 8080 } });
    assert.equal(reg.status, 200, reg.text);

    const file = join(dir, 'secrets-ui.hcl');
    writeFileSync(
      file,
      `storage "sqlite" { path = "${join(dir, 'secrets-ui.db')}" }
listener "tcp" {
  address                = "127.0.0.1:0"
  tls_disable            = true
  require_request_header = true
}
ui = true
ui_services {
  mesh = "${meshAddress}"
}
`,
    );
    const server = await startServer(file, {});
    t.after(() => server.kill());
    const { root } = await initAndUnseal(server.url);
    // One token for both services, as an operator who logs in once would have.
    const made = await call(server.url, 'POST', '/v1/auth/token/create', {
      token: root,
      headers: { 'X-Secrets-Request': 'true' },
      body: { id: ROOT, policies: ['root'] },
    });
    assert.equal(made.status, 200, made.text);
    assert.equal((await fetch(`${server.url}/v1/sys/seal-status`)).status, 412, 'the API still needs the header');
    assert.deepEqual(await (await fetch(`${server.url}/ui/config.json`)).json(), { sections: { secrets: '', mesh: '/ui/proxy/mesh' } });

    const { page, errors } = await newPage(browser, [
      {
        status: 404,
        method: 'GET',
        path: /^\/ui\/proxy\/mesh\/v1\/namespaces$/,
        why: 'the discovery section asks for namespaces to offer its switcher; this agent has none (404) and the switcher stays hidden',
      },
    ]);
    await signIn(page, `${server.url}/ui/`, ROOT);
    await axeCheck(page, 'secrets on a require_request_header listener');
    await shoot(page, '41-secrets-server-require-header');
    await page.getByRole('link', { name: 'Discovery' }).click();
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    await page.getByText('billing').first().waitFor();
    await axeCheck(page, 'discovery through the production proxy');
    await shoot(page, '42-secrets-server-discovery-section');

    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('link', { name: 'HA status' }).click();
    const single = page.getByTestId('ha-servers').getByRole('row');
    await single.nth(1).waitFor();
    assert.equal(await single.count(), 2, 'the header row and this server');
    assert.match((await single.nth(1).textContent()) ?? '', new RegExp(`${server.url.replace(/[.:/]/g, '\\$&')}.*active`));
    await axeCheck(page, 'HA status without HA');
    assert.deepEqual(errors, []);
  });

  describe('two HA secrets servers on PostgreSQL', () => {
    const table = `cairn_uiha_${randomBytes(4).toString('hex')}`;
    let pgServer: PgTestServer;
    const servers: Running[] = [];
    after(async () => {
      await killAll(servers);
      await pgServer?.stop();
    });

    it('the HA screen lists the active server and the standby', async () => {
      pgServer = await startPgTestServer();
      const env = { CAIRN_UI_HA_PG_URL: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200' };
      const file = join(dir, 'secrets-ha.hcl');
      writeFileSync(
        file,
        `storage "postgresql" {
  connection_url = "env://CAIRN_UI_HA_PG_URL"
  table          = "${table}"
  ha_enabled     = "true"
  max_parallel   = 4
}
listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}
ui = true
`,
      );
      const a = await startServer(file, env);
      servers.push(a);
      const { root, key } = await initAndUnseal(a.url);
      await until('A active', 10_000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
      const b = await startServer(file, env);
      servers.push(b);
      assert.equal((await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
      await until('A hears from B', 15_000, async () => {
        const res = await call(a.url, 'GET', '/v1/sys/ha-status', { token: root });
        return res.json?.nodes?.length === 2 ? true : undefined;
      });

      // Opened on the standby: the list comes from the active server, forwarded.
      const { page, errors } = await newPage(browser);
      await signIn(page, `${b.url}/ui/`, root);
      await page.getByRole('link', { name: 'HA status' }).click();
      await page.getByTestId('ha-role').filter({ hasText: 'standby' }).waitFor();
      const rows = page.getByTestId('ha-servers').getByRole('row');
      await rows.nth(2).waitFor();
      const text = await rows.allTextContents();
      assert.equal(text.length, 3, text.join('\n'));
      assert.ok(text[1].includes(a.url) && text[1].includes('active'), text[1]);
      assert.ok(text[2].includes(b.url) && text[2].includes('standby'), text[2]);
      await axeCheck(page, 'HA status with a standby');
      await shoot(page, '43-ha-status-two-servers');
      assert.deepEqual(errors, []);
    });
  });
});
