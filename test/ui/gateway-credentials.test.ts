/**
 * The gateway's credential stores screen (issue 20 scope 3) in Chromium against a real
 * `cairn dev` (its own secrets service and gateway): as `admin`, in the dev project, a
 * vault store with a token the reference refuses (not periodic) is refused with the
 * server's message and nothing is made; one with a periodic orphan token is made and
 * shows its token status, never the token; a vault-generic library and a static store
 * with a username/password credential are listed under their stores; a library and a
 * store are deleted. No axe finding, no console error; the stored state is checked
 * through the gateway API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  axeCheck,
  callApi,
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
import { storePolicy } from '../gateway/store-policy.js';

const POLICY = storePolicy('secret/data/*');

describe('web UI: gateway credential stores', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let goodToken = '';
  let badToken = '';
  const read = (path: string) => gatewayApi(dev, 'GET', path);
  const secretsApi = (method: string, path: string, body?: unknown) => callApi(`${dev.printed['Secrets service']}/v1/${path}`, method, 'X-Secrets-Token', body);

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      GATEWAY_WORKERS_AS_USER,
      {
        status: 400,
        method: 'POST',
        path: /^\/ui\/proxy\/gateway\/v1\/credential-stores$/,
        why: 'a vault store with a token that is not periodic is refused on purpose',
      },
      {
        status: 404,
        method: 'GET',
        path: /^\/ui\/proxy\/gateway\/v1\/credential-libraries\?credential_store_id=csvlt_\w+$/,
        why: "the deleted vault store's libraries are read once more as the delete lands",
      },
    ]);
    await secretsApi('PUT', 'sys/policies/acl/gateway-ui', { policy: POLICY });
    const good = (await secretsApi('POST', 'auth/token/create', { policies: ['gateway-ui'], period: '1h', no_parent: true })) as {
      auth: { client_token: string };
    };
    const bad = (await secretsApi('POST', 'auth/token/create', { policies: ['gateway-ui'], ttl: '1h', no_parent: true })) as { auth: { client_token: string } };
    goodToken = good.auth.client_token;
    badToken = bad.auth.client_token;
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('signs in to the gateway and opens the credential stores of the dev project', async () => {
    const { page } = tab;
    await signInToGateway(page, dev.ui);
    await page.getByRole('navigation', { name: 'Gateway' }).getByRole('link', { name: 'Credential stores' }).click();
    await page.getByRole('heading', { name: 'Gateway credential stores' }).waitFor();
    await page.waitForFunction(() => (document.getElementById('gw-cs-project') as HTMLSelectElement | null)?.value === 'p_1234567890');
    await axeCheck(page, 'gateway credential stores (empty)');
  });

  let storeId = '';

  it("refuses a token that is not periodic with the server's message, then makes a vault store", async () => {
    const { page } = tab;
    const form = page.getByRole('form', { name: 'Create credential store' });
    await form.getByLabel('Name', { exact: true }).fill('ui-vault');
    await form.getByLabel('Secrets service address').fill(dev.printed['Secrets service']);
    await form.getByLabel('Token (periodic, renewable, orphan)').fill(badToken);
    await form.getByRole('button', { name: 'Create credential store' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /attributes\.token: vault token is not a periodic token/);
    await shoot(page, '50-gateway-credential-store-refused');
    assert.deepEqual(await gatewayItems(dev, 'credential-stores?scope_id=p_1234567890'), [], 'nothing was made');

    await form.getByLabel('Token (periodic, renewable, orphan)').fill(goodToken);
    await form.getByRole('button', { name: 'Create credential store' }).click();
    const row = page.getByTestId('credential-stores').getByRole('row').filter({ hasText: 'ui-vault' });
    await row.waitFor();
    await row.getByText('(token current)').waitFor();
    storeId = (await row.locator('code').first().textContent()) ?? '';
    assert.match(storeId, /^csvlt_/);
    const stored = await read(`credential-stores/${storeId}`);
    assert.equal(stored.body.attributes.token_status, 'current');
    assert.ok(!stored.text.includes(goodToken), 'the token is never shown');
    assert.ok(!(await page.content()).includes(goodToken), 'the page no longer holds the token');
  });

  it('adds a library to the vault store and a username/password credential to a static store', async () => {
    const { page } = tab;
    const lib = page.getByRole('form', { name: 'Create credential library' });
    await lib.getByLabel('Library name').fill('ui-db');
    await lib.getByLabel('Path').fill('secret/data/ui/db');
    await lib.getByLabel('Credential type').selectOption('username_password');
    await lib.getByRole('button', { name: 'Create credential library' }).click();
    await page.getByTestId(`held-${storeId}`).getByText('secret/data/ui/db').waitFor();

    const store = page.getByRole('form', { name: 'Create credential store' });
    await store.getByLabel('Type').selectOption('static');
    await store.getByLabel('Name', { exact: true }).fill('ui-static');
    await store.getByRole('button', { name: 'Create credential store' }).click();
    await page.getByTestId('credential-stores').getByRole('row').filter({ hasText: 'ui-static' }).getByText('No credentials').waitFor();
    const cred = page.getByRole('form', { name: 'Create username and password credential' });
    await cred.getByLabel('Credential name').fill('ui-ops');
    await cred.getByLabel('Username').fill('ops');
    await cred.getByLabel('Password', { exact: true }).fill('ui-static-password');
    await cred.getByRole('button', { name: 'Create username and password credential' }).click();
    const staticRow = page.getByTestId('credential-stores').getByRole('row').filter({ hasText: 'ui-static' });
    await staticRow.getByText('ui-ops').waitFor();
    const staticId = (await staticRow.locator('code').first().textContent()) ?? '';
    const creds = await read(`credentials?credential_store_id=${staticId}`);
    assert.equal(creds.body.items[0].attributes.username, 'ops');
    assert.ok(creds.body.items[0].attributes.password_hmac);
    assert.ok(!creds.text.includes('ui-static-password'));
    await axeCheck(page, 'gateway credential stores');
    await shoot(page, '51-gateway-credential-stores');
  });

  it('deletes the library and the vault store', async () => {
    const { page } = tab;
    await page.getByRole('button', { name: 'Delete library ui-db' }).click();
    await page.getByTestId('credential-stores').getByRole('row').filter({ hasText: 'ui-vault' }).getByText('No libraries').waitFor();
    await page.getByRole('button', { name: 'Delete credential store ui-vault' }).click();
    await page.getByTestId('credential-stores').getByText('ui-vault').waitFor({ state: 'detached' });
    assert.equal((await read(`credential-stores/${storeId}`)).status, 404);
    await shoot(page, '52-gateway-credential-stores-deleted');
  });

  it('logged no console error', () => {
    assert.deepEqual(tab.errors, []);
  });
});
