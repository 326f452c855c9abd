/**
 * The web UI's OIDC and JWT logins (issue 18 screen 1) in Chromium against a real `cairn dev`
 * and a real OpenID provider on loopback (`oidc-provider`, src/kernel/authn/testdata): the
 * secrets service's `oidc` auth method allows the UI's redirect URI
 * `<ui>/secrets/auth/oidc/oidc/callback`; signing in opens the provider in a popup, whose
 * callback hands `state` and `code` back to the tab, which exchanges them for a token kept
 * in its sessionStorage and shows who signed in; with popups blocked the tab itself goes
 * to the provider and back. An unknown role's refusal is shown on the form, a callback
 * with no login started says so, and a pasted JWT signs in at a `jwt` mount. Every screen
 * is screenshot and checked with axe-core; no page (popup included) logs a console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { axeCheck, callApi, launchBrowser, newPage, openSecrets, shoot, startDev, type Dev, type ExpectedFailure, type WatchedPage } from './harness.js';

/** What the signed-in user's tabs may be refused: what a non-root login cannot read, said on its screen, and a role asked for on purpose. */
const EXPECTED: readonly ExpectedFailure[] = [
  {
    status: 403,
    method: 'GET',
    path: /^\/ui\/proxy\/(mesh|sched)\/v1\//,
    why: "the overview reads every service with the user's secrets token, which the discovery service and the scheduler do not know: their cards say so",
  },
  {
    status: 403,
    method: 'GET',
    path: /^\/v1\/sys\/metrics\?format=prometheus$/,
    why: "the user may not read the metrics the overview's charts sample: it says so and stops asking",
  },
  {
    status: 403,
    method: 'GET',
    path: /^\/v1\/sys\/mounts$/,
    why: 'the secrets section opens on the secrets engines, which the people and ci policies do not grant: the screen says why',
  },
  { status: 400, method: 'POST', path: /^\/v1\/auth\/oidc\/oidc\/auth_url$/, why: 'an unknown role is asked for on purpose' },
];

describe('web UI: OIDC and JWT login to the secrets service', { timeout: 180_000 }, () => {
  let dev: Dev;
  let op: TestProvider;
  let browser: Browser;
  let callback: string;
  /** Console errors of the popups; each tab's own are in `tabs`. */
  const errors: string[] = [];
  const tabs: WatchedPage[] = [];
  const secretsApi = (path: string) => `${dev.printed['Secrets service']}/v1/${path}`;
  const setUp = (path: string, body: unknown) => callApi(secretsApi(path), 'POST', 'X-Secrets-Token', body);

  /** A fresh tab (its own sessionStorage) on the login form with OIDC chosen; console errors of it and its popups recorded. */
  const oidcForm = async (blockPopups = false): Promise<Page> => {
    const tab = await newPage(browser, EXPECTED);
    tabs.push(tab);
    const { page } = tab;
    page.context().on('console', (m) => {
      if (m.page() !== page && m.type() === 'error' && !/^Failed to load resource: the server responded with a status of [45]\d\d/.test(m.text()))
        errors.push(`popup: ${m.text()}`);
    });
    if (blockPopups) await page.addInitScript(() => (window.open = () => null));
    await page.goto(dev.ui);
    await page.getByRole('radio', { name: 'OIDC' }).check();
    return page;
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    callback = `${dev.ui}secrets/auth/oidc/oidc/callback`;
    // native: the provider takes a loopback redirect URI on any port (RFC 8252 §7.3).
    op = await startProvider({
      clients: [{ client_id: 'cairn', client_secret: 'cairn-client-secret', redirect_uris: [callback], application_type: 'native' } as never],
    });
    await setUp('sys/auth/oidc', { type: 'oidc' });
    await setUp('auth/oidc/config', {
      oidc_discovery_url: op.issuer,
      oidc_client_id: 'cairn',
      oidc_client_secret: 'cairn-client-secret',
      default_role: 'people',
    });
    await setUp('auth/oidc/role/people', {
      user_claim: 'email',
      allowed_redirect_uris: callback,
      oidc_scopes: 'email,groups',
      groups_claim: 'groups',
      bound_audiences: 'cairn',
      claim_mappings: { email: 'email' },
      token_policies: 'people',
      token_ttl: '1h',
    });
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
    await op?.close();
  });

  it('signs in through the provider in a popup; the tab keeps the token and shows who signed in', async () => {
    const page = await oidcForm();
    await page.getByLabel('Role').fill('people');
    assert.equal(await page.getByLabel('Auth mount').inputValue(), 'oidc');
    await axeCheck(page, 'login with OIDC');
    await shoot(page, '50-login-oidc');
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const opened = await popup;
    await opened.waitForEvent('close');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('oidc (alice@example.com)').waitFor();
    const stored = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cairn.session'))) ?? '{}') as { token: string };
    assert.doesNotMatch(page.url(), new RegExp(stored.token));
    // The token is the OIDC login's: its metadata and policies, looked up with the root token.
    const who = (await callApi(secretsApi('auth/token/lookup'), 'POST', 'X-Secrets-Token', { token: stored.token })) as {
      data: { meta: Record<string, string>; policies: string[]; path: string };
    };
    assert.equal(who.data.meta.email, 'alice@example.com');
    assert.deepEqual(who.data.policies, ['default', 'people']);
    assert.equal(who.data.path, 'auth/oidc/oidc/callback');
    await openSecrets(page);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('definition').filter({ hasText: 'default, people' }).waitFor();
    await axeCheck(page, 'tokens after OIDC login');
    await shoot(page, '51-oidc-signed-in');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('cairn.oidc')), null);
  });

  it('goes to the provider in the same tab when popups are blocked, and comes back signed in', async () => {
    const page = await oidcForm(true);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('oidc (alice@example.com)').waitFor();
    assert.equal(new URL(page.url()).pathname, '/ui/overview');
    await shoot(page, '52-oidc-same-tab');
  });

  it("shows the auth method's refusal on the form, and a callback with no login started", async () => {
    const page = await oidcForm();
    await page.getByLabel('Role').fill('nope');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'role "nope" could not be found' }).waitFor();
    await axeCheck(page, 'OIDC login refused');
    await shoot(page, '53-oidc-refused');
    await page.goto(`${callback}?state=made-up&code=made-up`);
    await page.getByRole('alert').filter({ hasText: 'No OIDC login was started in this tab' }).waitFor();
    await axeCheck(page, 'OIDC callback without a login');
    await shoot(page, '54-oidc-callback-unstarted');
  });

  it('signs in with a pasted JWT at a jwt mount', async () => {
    await setUp('sys/auth/jwt', { type: 'jwt' });
    await setUp('auth/jwt/config', { jwks_url: `${op.issuer}/jwks` });
    await setUp('auth/jwt/role/ci', { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'cairn-ci', token_policies: 'ci' });
    const now = Math.floor(Date.now() / 1000);
    const jwt = await op.sign({ iss: op.issuer, sub: 'ci-job-1', aud: 'cairn-ci', iat: now, exp: now + 300 });
    const tab = await newPage(browser, EXPECTED);
    tabs.push(tab);
    const { page } = tab;
    await page.goto(dev.ui);
    await page.getByRole('radio', { name: 'JWT' }).check();
    await page.getByRole('textbox', { name: 'JWT', exact: true }).fill(jwt);
    await page.getByLabel('Role').fill('ci');
    await axeCheck(page, 'login with a JWT');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText(/^jwt \(/).waitFor();
    await shoot(page, '55-jwt-signed-in');
  });

  it('logged no console error in any tab or popup', () => {
    assert.deepEqual([...errors, ...tabs.flatMap((t) => t.errors)], []);
  });
});
