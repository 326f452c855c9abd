/**
 * The gateway's host catalog screen with the discovery service type (issue 26 scopes 5–6)
 * in Chromium against a real `cairn dev`, signed in to the gateway as `admin`: a service
 * registered in the dev discovery service with an HTTP check against a server this test
 * runs; an unreachable address refused with the server's text (nothing stored); a
 * `plugin` catalog made from the form (the token sent, never shown), a host set naming the
 * service showing its current host (address and port), and a second instance appearing
 * in the set on its own while the page is open. No axe finding, no console error; the
 * stored state is checked through the gateway API.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  axeCheck,
  gatewayApi,
  gatewayItems,
  launchBrowser,
  GATEWAY_WORKERS_AS_USER,
  newPage,
  ROOT_TOKEN,
  shoot,
  signInToGateway,
  startDev,
  type Dev,
  type WatchedPage,
} from './harness.js';

const PROJECT = 'p_1234567890';

describe('web UI: a gateway host catalog over the discovery service', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  const servers: Server[] = [];
  const read = (path: string) => gatewayApi(dev, 'GET', path);
  /** An HTTP server on a free port, registered as an instance of `ui-web` with an HTTP check. */
  const instance = async (id: string) => {
    const server = createServer((_req, res) => res.end('ok'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const r = await fetch(`${dev.printed.Discovery}/v1/agent/service/register`, {
      method: 'PUT',
      headers: { 'X-Mesh-Token': ROOT_TOKEN },
      body: JSON.stringify({ ID: id, Name: 'ui-web', Address: '127.0.0.1', Port: port, Check: { HTTP: `http://127.0.0.1:${port}/`, Interval: '1s' } }),
    });
    assert.equal(r.status, 200, await r.text());
    return port;
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      GATEWAY_WORKERS_AS_USER,
      {
        status: 400,
        method: 'POST',
        path: /^\/ui\/proxy\/gateway\/v1\/host-catalogs$/,
        why: 'a catalog with an unreachable discovery address is refused on purpose',
      },
    ]);
    await signInToGateway(tab.page, dev.ui);
  });
  after(async () => {
    for (const s of servers) s.close();
    await browser?.close();
    await dev?.close();
  });

  let catalogId = '';

  it('offers the discovery service type; an unreachable address is refused; the catalog is made with its token hidden', async () => {
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Gateway' }).getByRole('link', { name: 'Host catalogs' }).click();
    await page.getByRole('heading', { name: 'Gateway host catalogs' }).waitFor();
    await page.waitForFunction((p) => (document.getElementById('gw-scope') as HTMLSelectElement | null)?.value === p, PROJECT);
    await page.getByLabel('Type').selectOption('plugin');
    await page.getByLabel('Name', { exact: true }).fill('ui-discovery');
    await page.getByLabel('Discovery service address').fill('http://127.0.0.1:1');
    await page.getByLabel('Discovery token').fill(ROOT_TOKEN);
    await page.getByRole('button', { name: 'Create host catalog' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'could not be reached' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /attributes\.address: The discovery service could not be reached/);
    await shoot(page, '58-gateway-plugin-catalog-refused');
    const plugins = (await gatewayItems(dev, `host-catalogs?scope_id=${PROJECT}`)).filter((c: { type: string }) => c.type === 'plugin');
    assert.deepEqual(plugins, [], 'nothing stored');

    await page.getByLabel('Discovery service address').fill(dev.printed.Discovery);
    await page.getByRole('button', { name: 'Create host catalog' }).click();
    const row = page.getByTestId('host-catalogs').getByRole('row').filter({ hasText: 'ui-discovery' });
    await row.waitFor();
    catalogId = (await row.locator('code').textContent()) ?? '';
    assert.match(catalogId, /^hcplg_/);
    await row.getByText('plugin').waitFor();
    const stored = (await read(`host-catalogs/${catalogId}`)).body;
    assert.equal(stored.plugin.name, 'consul');
    assert.deepEqual(stored.attributes, { address: dev.printed.Discovery });
    assert.ok(stored.secrets_hmac);
    assert.equal(await page.getByLabel('Discovery token').inputValue(), '', 'the form forgets the token');
    await axeCheck(page, 'gateway host catalogs (plugin form)');
    await shoot(page, '59-gateway-plugin-catalogs');
  });

  it('a host set over a service shows its current instances, and follows a new one', async () => {
    const { page } = tab;
    const first = await instance('ui-web-1');
    await page.getByTestId('host-catalogs').getByRole('link', { name: 'ui-discovery' }).click();
    await page.getByRole('heading', { name: 'Host catalog ui-discovery' }).waitFor();
    await page.getByLabel('Host set name').fill('web');
    await page.getByLabel('Service name').fill('ui-web');
    await page.getByRole('button', { name: 'Create host set' }).click();
    const setRow = page.getByTestId('host-sets').getByRole('row').filter({ hasText: 'ui-web' });
    await setRow.getByText(`127.0.0.1:${first}`).waitFor({ timeout: 30_000 });
    await setRow.getByText(/^Synced /).waitFor();
    const setId = (await setRow.locator('code').first().textContent()) ?? '';
    assert.match(setId, /^hsplg_/);
    assert.equal((await read(`host-sets/${setId}`)).body.host_ids.length, 1);
    await page.getByTestId('hosts').getByText(`127.0.0.1:${first}`).waitFor();
    await axeCheck(page, 'gateway plugin host catalog');
    await shoot(page, '60-gateway-plugin-host-set');

    // A second instance passes its check: the open page shows it without a reload.
    const second = await instance('ui-web-2');
    await setRow
      .getByText(new RegExp(`127\\.0\\.0\\.1:(${first}, 127\\.0\\.0\\.1:${second}|${second}, 127\\.0\\.0\\.1:${first})`))
      .waitFor({ timeout: 30_000 });
    assert.equal((await read(`host-sets/${setId}`)).body.host_ids.length, 2);
    await shoot(page, '61-gateway-plugin-host-set-followed');
    assert.ok(!(await page.content()).includes(ROOT_TOKEN), 'the token is nowhere on the page');
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
