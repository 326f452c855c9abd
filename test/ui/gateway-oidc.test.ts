/**
 * The gateway section's OIDC login (issue 20 scope 2) in Chromium against a real `cairn
 * dev` and a real OpenID provider on loopback (`oidc-provider`, src/kernel/authn/testdata):
 * an `active-public` OIDC auth method, made global's primary one through the API with the
 * recovery token, is offered on the gateway login; signing in opens the provider in a
 * popup, whose redirect reaches the controller's callback and ends on its "you may close
 * this window" page, while the tab polls the token (202 until then) and keeps it in its
 * session. The screen has no axe finding and no page logs a console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import type { JsonReply } from '../helpers.js';
import {
  axeCheck,
  gatewayApi,
  launchBrowser,
  loginWithToken,
  GATEWAY_WORKERS_AS_USER,
  newPage,
  shoot,
  startDev,
  type Dev,
  type WatchedPage,
} from './harness.js';

describe('web UI: gateway OIDC login', { timeout: 180_000 }, () => {
  let dev: Dev;
  let op: TestProvider;
  let browser: Browser;
  let tab: WatchedPage;
  const popupErrors: string[] = [];
  /** The gateway API with the recovery token. */
  const gateway = async (method: string, path: string, body?: unknown): Promise<JsonReply> => {
    const r = await gatewayApi(dev, method, path, body);
    assert.ok(r.status < 300, r.text);
    return r.body;
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    const api = dev.printed['Gateway api'].replace(/\/$/, '');
    op = await startProvider({
      clients: [{ client_id: 'gateway-ui', client_secret: 'gateway-ui-secret', redirect_uris: [`${api}/v1/auth-methods/oidc:authenticate:callback`] }],
    });
    const am = await gateway('POST', 'auth-methods', {
      scope_id: 'global',
      type: 'oidc',
      name: 'Example IdP',
      attributes: { issuer: op.issuer, client_id: 'gateway-ui', client_secret: 'gateway-ui-secret', api_url_prefix: api, claims_scopes: ['email'] },
    });
    await gateway('POST', `auth-methods/${am.id}:change-state`, { version: am.version, attributes: { state: 'active-public' } });
    const global = await gateway('GET', 'scopes/global');
    await gateway('PATCH', 'scopes/global', { version: global.version, primary_auth_method_id: am.id });
    tab = await newPage(browser, [GATEWAY_WORKERS_AS_USER]);
    tab.page.context().on('console', (m) => {
      if (m.page() !== tab.page && m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 404/.test(m.text()))
        popupErrors.push(`popup: ${m.text()}`);
    });
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
    await op?.close();
  });

  it('signs in through the provider in a popup; the tab keeps the OIDC auth token', async () => {
    const { page } = tab;
    await loginWithToken(page, dev.ui);
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Gateway' }).click();
    const button = page.getByRole('button', { name: 'Sign in with Example IdP' });
    await button.waitFor();
    await axeCheck(page, 'gateway login with OIDC');
    await shoot(page, '45-gateway-login-oidc');
    const popup = page.waitForEvent('popup');
    await button.click();
    const opened = await popup;
    await opened.waitForEvent('close');
    await page.getByRole('heading', { name: 'Workers' }).waitFor();
    await page.getByText('Gateway: oidc (Example IdP)').waitFor();
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('cairn.session') ?? '{}') as { gatewayToken?: string });
    assert.match(stored.gatewayToken ?? '', /^at_/);
    const token = await gateway('GET', `auth-tokens/${/^(at_[0-9A-Za-z]{10})_/.exec(stored.gatewayToken!)![1]}`);
    assert.match(token.account_id, /^acctoidc_/);
    const account = await gateway('GET', `accounts/${token.account_id}`);
    assert.equal(account.attributes.email, 'alice@example.com');
    await shoot(page, '46-gateway-oidc-signed-in');
  });

  it('logged no console error in the tab or the popup', () => {
    assert.deepEqual([...popupErrors, ...tab.errors], []);
  });
});
