/**
 * The secrets service's database, transit and PKI screens (issue 28 item 5) in Chromium
 * against a real `cairn dev` and a throwaway PostgreSQL cluster: a transit key created,
 * text encrypted, the key rotated, the old ciphertext still decrypted, then refused once
 * `min_decryption_version` moves past it; a root CA generated, a role made, a certificate
 * issued and then revoked (in the CRL's list), a name outside the role refused with the
 * server's message; a PostgreSQL connection configured, a role made, credentials issued (the
 * user exists in PostgreSQL) and their lease revoked (the user is gone). The stored state
 * is checked through the API and PostgreSQL; every screen is screenshot and checked with
 * axe-core, and no page logs an unexpected error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { until } from '../processes.js';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

describe('web UI: database, transit and PKI engines', { timeout: 240_000 }, () => {
  let dev: Dev;
  let db: PgTestServer;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const secretsApi = (path: string) => `${dev.printed['Secrets service']}/v1/${path}`;
  const read = (path: string) => callApi(secretsApi(path), 'GET', 'X-Secrets-Token') as Promise<{ data: Record<string, unknown> }>;
  /** Whether PostgreSQL has a role named `name`. */
  const roleExists = async (name: string) => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount === 1;
    } finally {
      await c.end();
    }
  };
  const openEngine = async (mount: string, heading: string) => {
    await page.getByRole('navigation', { name: 'Secrets' }).getByRole('link', { name: 'Engines' }).click();
    await page.getByRole('link', { name: `${mount}/` }).click();
    await page.getByRole('heading', { name: heading }).waitFor();
  };

  before(async () => {
    [dev, browser, db] = await Promise.all([startDev(), launchBrowser(), startPgTestServer()]);
    for (const type of ['transit', 'pki', 'database']) await callApi(secretsApi(`sys/mounts/${type}`), 'POST', 'X-Secrets-Token', { type });
    const empty = (path: RegExp, what: string) => ({
      status: 404,
      method: 'GET',
      path,
      why: `${what} is empty at first: the reference's 404 of an empty LIST, shown as none`,
    });
    tab = await newPage(browser, [
      empty(/^\/v1\/transit\/keys\?list=true$/, 'the key list'),
      empty(/^\/v1\/pki\/(roles|certs|certs\/revoked)\?list=true$/, 'a PKI list'),
      empty(/^\/v1\/database\/(config|roles|static-roles)\?list=true$/, 'a database list'),
      empty(/^\/v1\/sys\/leases\/lookup\/database\/creds\/ui-app\?list=true$/, "the role's lease list once revoked"),
      { status: 400, method: 'GET', path: /^\/v1\/pki\/cert\/(ca|crl)$/, why: 'no issuer before the root CA is generated' },
      { status: 404, method: 'GET', path: /^\/v1\/pki\/cert\/(ca|crl)$/, why: 'no issuer before the root CA is generated' },
      { status: 400, method: 'POST', path: /^\/v1\/transit\/decrypt\/ui-key$/, why: 'a ciphertext older than min_decryption_version is refused on purpose' },
      { status: 400, method: 'POST', path: /^\/v1\/pki\/issue\/web$/, why: 'a name outside allowed_domains is refused on purpose' },
    ]);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
    await db?.stop();
  });

  it('transit: creates a key, encrypts, rotates, decrypts the old ciphertext, then refuses it past min_decryption_version', async () => {
    await openEngine('transit', 'Transit engine transit/');
    await page.getByLabel('Key name').fill('ui-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key ui-key' }).waitFor();
    assert.equal(await page.getByTestId('latest-version').textContent(), '1');
    await page.getByLabel('Plaintext').fill('hello from the UI ✓');
    await page.getByRole('button', { name: 'Encrypt', exact: true }).click();
    await page.waitForFunction(() => (document.getElementById('tool-ciphertext') as HTMLTextAreaElement).value.startsWith('vault:v1:'));
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByTestId('latest-version').filter({ hasText: '2' }).waitFor();
    assert.equal((await read('transit/keys/ui-key')).data.latest_version, 2);
    await page.getByLabel('Plaintext').fill('');
    await page.getByRole('button', { name: 'Decrypt' }).click();
    await page.waitForFunction(() => (document.getElementById('tool-plaintext') as HTMLTextAreaElement).value === 'hello from the UI ✓');
    await axeCheck(page, 'transit key');
    await shoot(page, '70-transit-key');

    await page.getByLabel('Min decryption version').fill('2');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the configuration of ui-key.' }).waitFor();
    assert.equal((await read('transit/keys/ui-key')).data.min_decryption_version, 2);
    await page.getByRole('button', { name: 'Decrypt' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /disallowed by policy|too old/ })
      .waitFor();
  });

  let serial = '';
  it('PKI: generates a root CA, makes a role, issues a certificate, refuses a name outside the role, revokes into the CRL', async () => {
    await openEngine('pki', 'PKI engine pki/');
    await page.getByLabel('Root common name').fill('Cairn UI Root');
    await page.getByRole('button', { name: 'Generate root CA' }).click();
    await page.getByText("Default issuer's certificate").waitFor();
    await page.getByLabel('Role name').fill('web');
    await page.getByLabel('Allowed domains (comma-separated)').fill('example.com');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByTestId('pki-roles').getByText('web').waitFor();
    const issueForm = page.getByRole('form', { name: 'Issue a certificate' });
    await issueForm.getByLabel('Common name').fill('app.example.com');
    await issueForm.getByRole('button', { name: 'Issue' }).click();
    serial = (await page.getByTestId('issued-serial').textContent()) ?? '';
    assert.match(serial, /^[0-9a-f]{2}(:[0-9a-f]{2})+$/);
    assert.match(String((await read(`pki/cert/${serial}`)).data.certificate), /^-----BEGIN CERTIFICATE-----/);
    await axeCheck(page, 'PKI');
    await shoot(page, '71-pki-issued');

    await issueForm.getByLabel('Common name').fill('evil.org');
    await issueForm.getByRole('button', { name: 'Issue' }).click();
    await page.getByRole('alert').filter({ hasText: 'evil.org' }).waitFor();

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Revoke certificate ${serial}` }).click();
    await page.getByTestId('pki-certs').getByRole('row').filter({ hasText: serial }).getByText('revoked').waitFor();
    const revoked = (await read('pki/certs/revoked?list=true')).data.keys as string[];
    assert.ok(revoked.includes(serial), `the revoked serial is listed: ${revoked.join(', ')}`);
    await page.getByTestId('pki-crl').filter({ hasText: 'BEGIN X509 CRL' }).waitFor();
    await shoot(page, '72-pki-revoked');
  });

  it('database: configures a PostgreSQL connection, issues credentials of a role, and revoking their lease drops the user', async () => {
    await openEngine('database', 'Database engine database/');
    const url = new URL(db.url);
    await page.getByLabel('Connection name').fill('pg');
    await page.getByLabel('Connection URL').fill(`postgresql://{{username}}:{{password}}@${url.host}${url.pathname}?sslmode=disable`);
    await page.getByLabel('Username').fill(decodeURIComponent(url.username));
    await page.getByLabel('Password').fill(decodeURIComponent(url.password));
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.getByTestId('db-connections').getByText('postgresql-database-plugin').waitFor();
    assert.equal((await read('database/config/pg')).data.password, undefined, 'the password is never shown');
    await page.getByLabel('Role name').fill('ui-app');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByRole('button', { name: 'Issue credentials of ui-app' }).click();
    const username = (await page.getByTestId('db-issued').locator('code').first().textContent()) ?? '';
    assert.match(username, /^v-/);
    assert.ok(await roleExists(username), 'the issued user exists in PostgreSQL');
    await page.getByRole('list', { name: 'Leases of ui-app' }).getByRole('listitem').first().waitFor();
    await axeCheck(page, 'database');
    await shoot(page, '73-database-issued');

    await page.getByRole('list', { name: 'Leases of ui-app' }).getByRole('button').first().click();
    await page.getByText('No leases.').waitFor();
    await until('the revoked user is dropped', 10_000, async () => ((await roleExists(username)) ? undefined : true));
    assert.deepEqual(tab.errors, []);
  });
});
