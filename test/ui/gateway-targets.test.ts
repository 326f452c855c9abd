/**
 * The gateway's host catalog and target screens (issue 20) in Chromium against a real
 * `cairn dev`, signed in to the gateway as `admin`: in the dev project, create a host
 * catalog, a host (an address with a port refused with the server's text, nothing
 * stored), a host set holding the host; create a target, attach the host set as its host
 * source and remove it again; delete the target and the catalog. Each screen has no axe
 * finding and no console error; the stored state is checked through the gateway API with
 * the recovery token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  axeCheck,
  gatewayApi,
  gatewayItems,
  launchBrowser,
  GATEWAY_WORKERS_AS_USER,
  newPage,
  shoot,
  signInToGateway,
  startDev,
  type Dev,
  type WatchedPage,
} from './harness.js';

const PROJECT = 'p_1234567890';

describe('web UI: gateway host catalogs and targets', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  /** The gateway API's reply to `GET /v1/<path>` with the recovery token. */
  const read = (path: string) => gatewayApi(dev, 'GET', path);
  const gatewayNav = () => tab.page.getByRole('navigation', { name: 'Gateway' });

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      GATEWAY_WORKERS_AS_USER,
      { status: 400, method: 'POST', path: /^\/ui\/proxy\/gateway\/v1\/hosts$/, why: 'a static host address with a port is refused on purpose' },
    ]);
    await signInToGateway(tab.page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  let catalogId = '';
  let hostId = '';
  let setId = '';
  let targetId = '';

  it('creates a host catalog in the dev project', async () => {
    const { page } = tab;
    await gatewayNav().getByRole('link', { name: 'Host catalogs' }).click();
    await page.getByRole('heading', { name: 'Gateway host catalogs' }).waitFor();
    await page.waitForFunction((p) => (document.getElementById('gw-scope') as HTMLSelectElement | null)?.value === p, PROJECT);
    await page.getByLabel('Name', { exact: true }).fill('ui-servers');
    await page.getByRole('button', { name: 'Create host catalog' }).click();
    const row = page.getByTestId('host-catalogs').getByRole('row').filter({ hasText: 'ui-servers' });
    await row.waitFor();
    catalogId = (await row.locator('code').textContent()) ?? '';
    assert.match(catalogId, /^hcst_/);
    const stored = (await read(`host-catalogs/${catalogId}`)).body;
    assert.equal(stored.scope_id, PROJECT);
    assert.equal(stored.type, 'static');
    await axeCheck(page, 'gateway host catalogs');
    await shoot(page, '50-gateway-host-catalogs');
  });

  it("adds a host (a port refused with the server's text), a host set, and the host to the set", async () => {
    const { page } = tab;
    await page.getByTestId('host-catalogs').getByRole('link', { name: 'ui-servers' }).click();
    await page.getByRole('heading', { name: 'Host catalog ui-servers' }).waitFor();
    await page.getByLabel('Host name').fill('web1');
    await page.getByLabel('Address').fill('127.0.0.1:22');
    await page.getByRole('button', { name: 'Add host' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'does not support a port' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /attributes\.address: Address for static hosts does not support a port\./);
    await shoot(page, '51-gateway-host-refused');
    assert.deepEqual(await gatewayItems(dev, `hosts?host_catalog_id=${catalogId}`), [], 'the refused host was not stored');

    await page.getByLabel('Address').fill('127.0.0.1');
    await page.getByRole('button', { name: 'Add host' }).click();
    const hostRow = page.getByTestId('hosts').getByRole('row').filter({ hasText: 'web1' });
    await hostRow.waitFor();
    hostId = (await hostRow.locator('code').first().textContent()) ?? '';
    assert.match(hostId, /^hst_/);
    assert.equal(await page.getByRole('alert').count(), 0);

    await page.getByLabel('Host set name').fill('ui-web');
    await page.getByRole('button', { name: 'Create host set' }).click();
    const setRow = page.getByTestId('host-sets').getByRole('row').filter({ hasText: 'ui-web' });
    await setRow.waitFor();
    setId = (await setRow.locator('code').textContent()) ?? '';
    assert.match(setId, /^hsst_/);
    await page.getByRole('button', { name: 'Add host to set' }).click();
    await setRow.getByText('web1').waitFor();
    assert.deepEqual((await read(`host-sets/${setId}`)).body.host_ids, [hostId]);
    assert.deepEqual((await read(`hosts/${hostId}`)).body.host_set_ids, [setId]);
    await axeCheck(page, 'gateway host catalog');
    await shoot(page, '52-gateway-host-catalog');
  });

  it('creates a target and attaches the host set as its host source, then removes it', async () => {
    const { page } = tab;
    await gatewayNav().getByRole('link', { name: 'Targets' }).click();
    await page.getByRole('heading', { name: 'Gateway targets' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ui-ssh');
    await page.getByLabel('Default port').fill('22');
    await page.getByRole('button', { name: 'Create target' }).click();
    const row = page.getByTestId('targets').getByRole('row').filter({ hasText: 'ui-ssh' });
    await row.waitFor();
    targetId = (await row.locator('code').textContent()) ?? '';
    assert.match(targetId, /^ttcp_/);
    const made = (await read(`targets/${targetId}`)).body;
    assert.deepEqual(made.attributes, { default_port: 22 });
    assert.equal(made.session_max_seconds, 28800);
    await axeCheck(page, 'gateway targets');
    await shoot(page, '53-gateway-targets');

    await row.getByRole('link', { name: 'ui-ssh' }).click();
    await page.getByRole('heading', { name: 'Target ui-ssh' }).waitFor();
    await page.getByLabel('Host set').waitFor();
    await page.getByRole('button', { name: 'Attach host source' }).click();
    await page.getByTestId('host-sources').getByText(setId).waitFor();
    const attached = (await read(`targets/${targetId}`)).body;
    assert.deepEqual(attached.host_sources, [{ id: setId, host_catalog_id: catalogId }]);
    assert.equal(attached.version, 2);
    await axeCheck(page, 'gateway target');
    await shoot(page, '54-gateway-target');

    await page.getByRole('button', { name: `Remove host source ${setId}` }).click();
    await page.getByTestId('host-sources').getByText(setId).waitFor({ state: 'detached' });
    assert.deepEqual((await read(`targets/${targetId}`)).body.host_source_ids, []);
  });

  it('deletes the target and the catalog with its hosts and sets', async () => {
    const { page } = tab;
    await page.getByRole('link', { name: 'All targets of this project' }).click();
    await page.getByRole('button', { name: 'Delete target ui-ssh' }).click();
    await page.getByTestId('targets').getByText('ui-ssh').waitFor({ state: 'detached' });
    assert.equal((await read(`targets/${targetId}`)).status, 404);
    await gatewayNav().getByRole('link', { name: 'Host catalogs' }).click();
    await page.getByRole('button', { name: 'Delete host catalog ui-servers' }).click();
    await page.getByTestId('host-catalogs').getByText('ui-servers').waitFor({ state: 'detached' });
    assert.equal((await read(`host-catalogs/${catalogId}`)).status, 404);
    assert.equal((await read(`hosts/${hostId}`)).status, 404);
    assert.equal((await read(`host-sets/${setId}`)).status, 404);
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
