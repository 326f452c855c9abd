/**
 * The web UI's secrets screens in Chromium against a real `cairn dev` (issue 18): the
 * printed URL serves the UI with its CSP; login with a token (a wrong one refused) and with
 * userpass, the token in sessionStorage only, logout clearing it; a secret written, two
 * versions seen and diffed, values hidden until revealed (in the diff too); a check-and-set conflict
 * explained; a policy saved with an error shown at its line, then fixed; seal and unseal;
 * a folder of 10,000 keys listed virtualised and searched. Every screen is screenshot,
 * checked with axe-core, and no page logs a console error.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { UI_CSP } from '../../src/kernel/http/index.js';
import { axeCheck, callApi, launchBrowser, newPage, openSecrets, ROOT_TOKEN, SHOTS, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

describe('web UI: secrets', { timeout: 240_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const secretsApi = (path: string) => `${dev.printed['Secrets service']}/v1/${path}`;

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      { status: 403, method: 'GET', path: /^\/v1\/auth\/token\/lookup-self$/, why: 'a wrong token is refused on purpose at login' },
      {
        status: 404,
        method: 'GET',
        path: /^\/v1\/secret\/metadata\/\?list=true$/,
        why: "the empty mount lists nothing: the reference's 404, shown as an empty folder",
      },
      {
        status: 404,
        method: 'GET',
        path: /^\/v1\/secret\/data\/app\/db\?version=1$/,
        why: "version 1 is read while deleted on purpose: the reference's 404, shown as a deleted version",
      },
      { status: 400, method: 'POST', path: /^\/v1\/secret\/data\/app\/db$/, why: 'a check-and-set conflict is provoked on purpose' },
      { status: 400, method: 'PUT', path: /^\/v1\/sys\/policies\/acl\/app-read$/, why: 'a policy with a parse error is saved on purpose' },
    ]);
    page = tab.page;
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('cairn dev prints the UI URL, served with the strict CSP', async () => {
    assert.equal(dev.ui, `${dev.printed['Secrets service']}/ui/`);
    const res = await fetch(dev.ui);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-security-policy'), UI_CSP);
    const html = await res.text();
    // No inline script: the only script is a file of this origin.
    assert.match(html, /<script type="module" crossorigin src="\/ui\/assets\/index-[\w-]+\.js"><\/script>/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('refuses a wrong token, then logs in with the root token kept in sessionStorage only', async () => {
    await page.goto(dev.ui);
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    await axeCheck(page, 'login');
    await shoot(page, '01-login');
    await page.getByRole('textbox', { name: 'Token' }).fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'permission denied' }).waitFor();
    await page.getByRole('textbox', { name: 'Token' }).fill(ROOT_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await openSecrets(page);
    assert.doesNotMatch(page.url(), new RegExp(ROOT_TOKEN));
    assert.match(await page.evaluate(() => sessionStorage.getItem('cairn.session') ?? ''), new RegExp(ROOT_TOKEN));
    assert.equal(await page.evaluate(() => JSON.stringify(localStorage)).then((s) => s.includes(ROOT_TOKEN)), false);
    await page.getByRole('link', { name: 'secret/' }).waitFor();
    await axeCheck(page, 'mounts');
    await shoot(page, '02-mounts');
  });

  it('writes a secret, shows two versions hidden until revealed, and diffs them', async () => {
    await page.getByRole('link', { name: 'secret/' }).click();
    await page.getByText('This folder is empty.').waitFor();
    await page.getByRole('link', { name: 'Create secret' }).click();
    await page.getByLabel('Path of the secret').fill('app/db');
    await page.getByLabel('Key 1').fill('username');
    await page.getByLabel('Value 1').fill('admin');
    await page.getByRole('button', { name: 'Add row' }).click();
    await page.getByLabel('Key 2').fill('password');
    await page.getByLabel('Value 2').fill('s3cret-one');
    await axeCheck(page, 'create secret');
    await shoot(page, '03-kv-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Version 1 (current)' }).waitFor();
    assert.equal(await page.getByTestId('value-password').textContent(), '••••••••');
    await page.getByRole('button', { name: 'Reveal password' }).click();
    assert.equal(await page.getByTestId('value-password').textContent(), 's3cret-one');
    await page.getByRole('button', { name: 'Copy password' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 's3cret-one');

    await page.getByRole('button', { name: 'Create new version' }).click();
    await page.getByLabel('Value 2').fill('s3cret-two');
    await page.getByRole('button', { name: 'Add row' }).click();
    await page.getByLabel('Key 3').fill('port');
    await page.getByLabel('Value 3').fill('5432');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Version 2 (current)' }).waitFor();
    const stored = (await callApi(secretsApi('secret/data/app/db'), 'GET', 'X-Secrets-Token')) as { data: { data: unknown } };
    assert.deepEqual(stored.data.data, { username: 'admin', password: 's3cret-two', port: '5432' });
    assert.equal(await page.getByRole('link', { name: /^Version [12]$/ }).count(), 2);

    await page.getByLabel('From', { exact: true }).selectOption('1');
    await page.getByLabel('To', { exact: true }).selectOption('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByTestId('diff');
    await diff.waitFor();
    const rows = () => diff.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    // As on the secret's view, the values stay hidden until revealed; the changes show.
    const hidden = '••••••••';
    assert.deepEqual(await rows(), [
      ['password', hidden, hidden, 'changed'],
      ['port', '—', hidden, 'added'],
      ['username', hidden, hidden, 'same'],
    ]);
    assert.equal(await diff.getByText(/s3cret|admin|5432/).count(), 0);
    await shoot(page, '04a-kv-diff-hidden');
    await page.getByRole('button', { name: 'Reveal values' }).click();
    assert.deepEqual(await rows(), [
      ['password', 's3cret-one', 's3cret-two', 'changed'],
      ['port', '—', '5432', 'added'],
      ['username', 'admin', 'admin', 'same'],
    ]);
    // The versions table is aligned: every cell of a row is a table cell with the same top and
    // height, and a row's text sits on the same line as its buttons (centres within 2 px).
    const row = page.locator('section[aria-labelledby="versions-h"] tbody tr').first();
    const cells = await row
      .locator('td')
      .evaluateAll((tds) => tds.map((td) => [getComputedStyle(td).display, td.getBoundingClientRect().top, td.getBoundingClientRect().height]));
    assert.equal(new Set(cells.map((c) => c.join(' '))).size, 1, JSON.stringify(cells));
    const centre = async (l: Locator) => {
      const b = (await l.boundingBox())!;
      return b.y + b.height / 2;
    };
    const offset = (await centre(row.getByRole('link', { name: 'Version 2' }))) - (await centre(row.getByRole('button', { name: 'Delete version 2' })));
    assert.ok(Math.abs(offset) < 2, `text and buttons ${offset} px apart`);
    const valueRow = page.getByRole('table', { name: 'Keys and values of version 2' }).getByRole('row').filter({ hasText: 'password' });
    // The key's text (not its cell, which spans the row).
    const keyText = await valueRow
      .getByRole('cell')
      .first()
      .evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        const b = range.getBoundingClientRect();
        return b.top + b.height / 2;
      });
    const keyOffset = keyText - (await centre(valueRow.getByRole('button', { name: 'Reveal password' })));
    assert.ok(Math.abs(keyOffset) < 2, `key and its buttons ${keyOffset} px apart`);
    await axeCheck(page, 'secret');
    await shoot(page, '04-kv-secret-diff');

    await page.getByRole('button', { name: 'Delete version 1' }).click();
    await page.getByRole('button', { name: 'Undelete version 1' }).waitFor();
    await page.getByRole('link', { name: 'Version 1' }).click();
    await page.getByText('This version is deleted').waitFor();
    await page.getByRole('button', { name: 'Undelete version 1' }).click();
    await page.getByRole('button', { name: 'Delete version 1' }).waitFor();
  });

  it('explains a check-and-set conflict when someone saved meanwhile', async () => {
    await page.getByRole('link', { name: 'Version 2' }).click();
    await page.getByRole('button', { name: 'Create new version' }).click();
    await callApi(secretsApi('secret/data/app/db'), 'POST', 'X-Secrets-Token', { data: { username: 'other' } });
    await page.getByLabel('Value 1').fill('mine');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone saved a newer version while you were editing' }).waitFor();
    await shoot(page, '05-kv-cas-conflict');
    const stored = (await callApi(secretsApi('secret/data/app/db'), 'GET', 'X-Secrets-Token')) as { data: { data: unknown } };
    assert.deepEqual(stored.data.data, { username: 'other' });
  });

  it("shows a policy's parse error at its line, then saves the fixed policy", async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'default' }).waitFor();
    await axeCheck(page, 'policies');
    await shoot(page, '06-policies');
    await page.getByRole('link', { name: 'Create policy' }).click();
    await page.getByLabel('Name', { exact: true }).fill('app-read');
    const editor = page.getByRole('textbox', { name: /Policy .*\(HCL\)/ });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // Typed without the closing brace of the second block: a syntax error on line 5.
    await editor.pressSequentially('path "secret/data/app/*" {\ncapabilities = ["read"]\n}\npath "secret/metadata/app/*" {\ncapabilities = ["list"]\n', {
      delay: 0,
    });
    await page.getByRole('button', { name: 'Save' }).click();
    const error = page.getByTestId('policy-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /^Line \d+: failed to parse policy: line \d+, column \d+: /);
    assert.equal(await page.locator('.cm-error-line').count(), 1);
    await axeCheck(page, 'policy editor with an error');
    await shoot(page, '07-policy-error');
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Policy app-read' }).waitFor();
    const stored = (await callApi(secretsApi('sys/policies/acl/app-read'), 'GET', 'X-Secrets-Token')) as { data: { policy: string } };
    assert.match(stored.data.policy, /path "secret\/metadata\/app\/\*" \{\s*capabilities = \["list"\]\s*\}\s*$/);
    await shoot(page, '08-policy-saved');
  });

  it('seals and unseals the service from the seal screen', async () => {
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('link', { name: 'Seal status' }).click();
    await page.getByTestId('seal-state').filter({ hasText: 'unsealed' }).waitFor();
    await axeCheck(page, 'seal status');
    await shoot(page, '09-seal-unsealed');
    await page.getByRole('button', { name: 'Seal' }).click();
    await page
      .getByTestId('seal-state')
      .filter({ hasText: /^sealed$/ })
      .waitFor();
    await axeCheck(page, 'sealed');
    await shoot(page, '10-seal-sealed');
    const key = readFileSync(join(dev.dataDir, 'dev-unseal-key'), 'utf8').trim();
    await page.getByLabel('Unseal key share').fill(key);
    await page.getByRole('button', { name: 'Unseal' }).click();
    await page.getByTestId('seal-state').filter({ hasText: 'unsealed' }).waitFor();
    const status = (await (await fetch(secretsApi('sys/seal-status'))).json()) as { sealed: boolean };
    assert.equal(status.sealed, false);
  });

  it('lists a folder of 10,000 keys virtualised, and searches within it', async () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((n) => callApi(secretsApi(`secret/data/big/${n}`), 'POST', 'X-Secrets-Token', { data: { v: n } })));
    }
    await page.getByRole('link', { name: 'Engines' }).click();
    await page.getByRole('link', { name: 'secret/' }).click();
    const start = await page.evaluate(() => performance.now());
    await page.getByRole('link', { name: 'big/' }).click();
    await page.getByTestId('kv-count').filter({ hasText: '10000 keys' }).waitFor();
    await page.getByRole('link', { name: 'k00000' }).waitFor();
    const ms = (await page.evaluate(() => performance.now())) - start;
    // Virtualised: a screenful of rows is in the page, not 10,000.
    const rendered = await page.locator('.vlist li').count();
    assert.ok(rendered > 0 && rendered < 100, `${rendered} rows rendered`);
    writeFileSync(join(SHOTS, 'kv-10000-render-ms.txt'), `${ms.toFixed(0)}\n`);
    await axeCheck(page, 'KV folder');
    await shoot(page, '11-kv-folder-10000');
    await page.getByLabel('Search this folder').fill('k09999');
    await page.getByTestId('kv-count').filter({ hasText: '1 of 10000 keys' }).waitFor();
    await page.getByRole('link', { name: 'k09999' }).click();
    await page.getByRole('heading', { name: 'Version 1 (current)' }).waitFor();
  });

  it("logs in with userpass in another tab; logout clears the tab's storage", async () => {
    await callApi(secretsApi('sys/auth/userpass'), 'POST', 'X-Secrets-Token', { type: 'userpass' });
    await callApi(secretsApi('auth/userpass/users/alice'), 'POST', 'X-Secrets-Token', { password: 'alice-pw', token_policies: 'app-read' });
    const other = await newPage(browser, [
      { status: 403, method: 'GET', path: /^\/v1\/sys\/mounts$/, why: 'alice may not list mounts: the screen says why' },
      {
        status: 403,
        method: 'GET',
        path: /^\/v1\/sys\/metrics\?format=prometheus$/,
        why: "alice may not read the metrics the overview's charts sample: it says so and stops asking",
      },
      {
        status: 403,
        method: 'GET',
        path: /^\/ui\/proxy\/(mesh|sched)\/v1\//,
        why: "the overview reads every service with alice's secrets token, which the discovery service and the scheduler do not know: their cards say so",
      },
    ]);
    const p = other.page;
    await p.goto(dev.ui);
    await p.getByLabel('Username and password').check();
    await p.getByLabel('Username', { exact: true }).fill('alice');
    await p.getByLabel('Password', { exact: true }).fill('alice-pw');
    await shoot(p, '12-login-userpass');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByText('userpass (alice)').waitFor();
    await p.getByTestId('card-discovery').getByText('Your login may not read its state.').waitFor();
    await p.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Secrets', exact: true }).click();
    // alice may not list mounts: the screen says why.
    await p.getByRole('alert').filter({ hasText: 'your token is not allowed' }).waitFor();
    await shoot(p, '13-userpass-forbidden');
    await p.getByRole('button', { name: 'Log out' }).click();
    await p.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    assert.equal(await p.evaluate(() => sessionStorage.length), 0);
    // Another tab (context) never had alice's token; the first tab is still logged in as root.
    await page.reload();
    await page.getByText('token', { exact: true }).waitFor();
    assert.deepEqual(other.errors, []);
  });

  it('lists auth methods with their users, creates a token and revokes it by accessor', async () => {
    await page.getByRole('link', { name: 'Auth methods' }).click();
    await page.getByRole('heading', { name: 'userpass/ (userpass)' }).waitFor();
    await page.getByRole('list', { name: 'Users of userpass/' }).getByText('alice').waitFor();
    await axeCheck(page, 'auth methods');
    await shoot(page, '16-auth-methods');
    await page.getByRole('link', { name: 'Tokens', exact: true }).click();
    const facts = page.locator('dl[aria-label="Your token"] dd');
    await facts.first().waitFor();
    assert.deepEqual(await facts.allTextContents().then((t) => [t[0], t[2]]), ['root', 'root']);
    await page.getByLabel('Policies (comma-separated)').fill('app-read');
    await page.getByRole('button', { name: 'Create token' }).click();
    const accessor = (await page.getByTestId('new-accessor').textContent()) ?? '';
    assert.match(accessor, /\S{8,}/);
    const lookup = (await callApi(secretsApi('auth/token/lookup-accessor'), 'POST', 'X-Secrets-Token', { accessor })) as { data: { policies: string[] } };
    assert.deepEqual(lookup.data.policies, ['app-read', 'default']);
    await axeCheck(page, 'tokens');
    await shoot(page, '17-tokens');
    await page.getByLabel('Accessor').fill(accessor);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(`Revoked the token with accessor ${accessor}.`).waitFor();
    const gone = await fetch(secretsApi('auth/token/lookup-accessor'), {
      method: 'POST',
      headers: { 'X-Secrets-Token': ROOT_TOKEN },
      body: JSON.stringify({ accessor }),
    });
    assert.equal(gone.ok, false);
  });

  it("switches the secrets namespace: the screens then show that namespace's mounts", async () => {
    await callApi(secretsApi('sys/namespaces/team'), 'POST', 'X-Secrets-Token', {});
    const mounted = await fetch(secretsApi('sys/mounts/team-kv'), {
      method: 'POST',
      headers: { 'X-Secrets-Token': ROOT_TOKEN, 'X-Secrets-Namespace': 'team', 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'kv', options: { version: '2' } }),
    });
    assert.equal(mounted.status, 204, await mounted.text());
    await page.getByRole('link', { name: 'Secrets', exact: true }).click();
    await page.getByRole('link', { name: 'secret/' }).waitFor();
    await page.getByRole('textbox', { name: 'Namespace' }).fill('team');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    await page.getByRole('link', { name: 'team-kv/' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'secret/' }).count(), 0);
    await shoot(page, '15-namespace-team');
    await page.getByRole('textbox', { name: 'Namespace' }).fill('');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    await page.getByRole('link', { name: 'secret/' }).waitFor();
  });

  it('switches the theme, and no page logged a console error (CSP violations included)', async () => {
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'app-read' }).click();
    await page.locator('.cm-content').waitFor();
    await axeCheck(page, 'policy editor, dark theme');
    await shoot(page, '14-policy-dark');
    assert.deepEqual(tab.errors, []);
  });
});
