/**
 * The web UI's secrets administration screens in Chromium against a real `cairn dev`
 * (issue 18): a file audit device enabled, listed, a value hashed with its salt (the same
 * hash the API gives), a bad option refused with the server's error, the device disabled
 * after a confirmation; the lease of a read from a leased KV v1 mount found by prefix,
 * renewed and revoked, then the rest revoked by prefix (checked through the API); a JSON
 * object wrapped, its token looked up, rewrapped and unwrapped once (the second unwrap shows
 * the server's error); a secret's metadata edited (a bad duration refused, then the settings
 * and custom metadata stored, checked through the API); the HA status; in
 * another namespace the audit and HA screens say they are root-only. Every new screen is
 * screenshot and checked with axe-core in both themes, and no page logs a console error.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, ROOT_TOKEN, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

describe('web UI: secrets administration', { timeout: 240_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const secretsApi = (path: string) => `${dev.printed['Secrets service']}/v1/${path}`;
  /** A call with the root token that may fail: its status and parsed body. */
  const tryApi = async (path: string, method: string, body?: unknown) => {
    const res = await fetch(secretsApi(path), {
      method,
      headers: { 'X-Secrets-Token': ROOT_TOKEN, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      { status: 400, method: 'PUT', path: /^\/v1\/sys\/audit\/bad-socket$/, why: 'a socket audit device that cannot connect is refused on purpose' },
      {
        status: 404,
        method: 'GET',
        path: /^\/v1\/sys\/leases\/lookup(\/leased(\/app)?)?\?list=true$/,
        why: "a lease folder emptied by the revocations lists nothing: the reference's 404, shown as no leases",
      },
      { status: 400, method: 'PUT', path: /^\/v1\/sys\/leases\/lookup$/, why: 'the revoked lease is looked up on purpose' },
      { status: 400, method: 'POST', path: /^\/v1\/sys\/wrapping\/unwrap$/, why: 'the wrapping token is unwrapped a second time on purpose' },
      { status: 400, method: 'POST', path: /^\/v1\/secret\/metadata\/meta\/one$/, why: 'a bad duration in the metadata form is refused on purpose' },
      {
        status: 400,
        method: 'GET',
        path: /^\/v1\/sys\/(leader|health\?standbyok=true&perfstandbyok=true|ha-status|audit)$/,
        why: 'the audit and HA screens are opened in the namespace team on purpose: operation unavailable in namespaces',
      },
    ]);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('enables a file audit device, lists it, hashes a value with its salt, and disables it after a confirmation', async () => {
    const logFile = join(dev.dataDir, 'ui-audit.log');
    await page.getByRole('link', { name: 'Audit devices' }).click();
    await page.getByText('No audit device is enabled').waitFor();
    await page.getByText('Enable a device first').waitFor();
    await page.getByLabel('Path (default: the type)').fill('ui-file');
    await page.getByLabel('Description').fill('from the UI');
    await page.getByLabel('File path').fill(logFile);
    await page.getByRole('button', { name: 'Enable device' }).click();
    await page.getByRole('status').filter({ hasText: 'Enabled the audit device ui-file/.' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'ui-file/' });
    await row.getByText('from the UI').waitFor();
    assert.match((await row.textContent()) ?? '', new RegExp(`file_path = ${logFile}`));
    const listed = (await callApi(secretsApi('sys/audit'), 'GET', 'X-Secrets-Token')) as {
      data: Record<string, { type: string; options: Record<string, string> }>;
    };
    assert.equal(listed.data['ui-file/'].type, 'file');
    assert.equal(listed.data['ui-file/'].options.file_path, logFile);
    assert.ok(existsSync(logFile));

    await page.getByLabel('Value', { exact: true }).fill('s3cret-value');
    await page.getByRole('button', { name: 'Hash', exact: true }).click();
    const hash = (await page.getByTestId('audit-hash').textContent()) ?? '';
    assert.match(hash, /^hmac-sha256:[0-9a-f]{64}$/);
    const viaApi = (await callApi(secretsApi('sys/audit-hash/ui-file'), 'PUT', 'X-Secrets-Token', { input: 's3cret-value' })) as { hash: string };
    assert.equal(hash, viaApi.hash);
    // The value typed in is only ever in the log hashed.
    assert.doesNotMatch(readFileSync(logFile, 'utf8'), /s3cret-value/);
    await axeCheck(page, 'audit devices');
    await shoot(page, '20-audit-devices');

    // A bad option is the server's 400, shown as it says.
    await page.getByLabel('Path (default: the type)').fill('bad-socket');
    await page.getByLabel('Type', { exact: true }).selectOption('socket');
    await page.getByLabel('Socket type').fill('carrier-pigeon');
    await page.getByLabel('Address').fill('127.0.0.1:1');
    await page.getByRole('button', { name: 'Enable device' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /socket_type|carrier-pigeon/ })
      .waitFor();
    await shoot(page, '21-audit-enable-error');
    assert.equal(((await callApi(secretsApi('sys/audit'), 'GET', 'X-Secrets-Token')) as { data: Record<string, unknown> }).data['bad-socket/'], undefined);

    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.getByRole('button', { name: 'Disable ui-file/' }).click();
    await page.getByText('No audit device is enabled').waitFor();
    assert.match(asked, /Disable the audit device ui-file\//);
    const after = (await callApi(secretsApi('sys/audit'), 'GET', 'X-Secrets-Token')) as { data: Record<string, unknown> };
    assert.deepEqual(Object.keys(after.data), []);
  });

  it('finds the lease of a leased KV v1 read by prefix, renews it, revokes it, and revokes a prefix', async () => {
    await callApi(secretsApi('sys/mounts/leased'), 'POST', 'X-Secrets-Token', { type: 'kv', options: { version: '1', leased_passthrough: 'true' } });
    await callApi(secretsApi('leased/app'), 'POST', 'X-Secrets-Token', { password: 'p', ttl: '1h' });
    const read = (await callApi(secretsApi('leased/app'), 'GET', 'X-Secrets-Token')) as { lease_id: string; renewable: boolean };
    assert.match(read.lease_id, /^leased\/app\/\S+$/);
    assert.equal(read.renewable, true);
    const id = read.lease_id.slice('leased/app/'.length);

    await page.getByRole('link', { name: 'Leases' }).click();
    await page.getByRole('button', { name: 'leased/' }).click();
    await page.getByRole('button', { name: 'app/' }).click();
    await page.getByRole('button', { name: `Look up lease ${read.lease_id}` }).click();
    await page.getByRole('heading', { name: `Lease ${read.lease_id}` }).waitFor();
    assert.match((await page.getByTestId('lease').textContent()) ?? '', /Renewableyes/);
    await page.getByRole('list', { name: 'Leases under leased/app/' }).getByText(id).waitFor();
    await axeCheck(page, 'leases');
    await shoot(page, '22-leases-lookup');

    await page.getByLabel('Increment').fill('30m');
    await page.getByRole('button', { name: 'Renew' }).click();
    await page.getByRole('status').filter({ hasText: 'Renewed: the lease now has 1800 s left.' }).waitFor();
    // The increment counts from now (the reference's renew): 30 minutes left, not 1 h + 30 min.
    assert.match((await page.getByTestId('lease-ttl').textContent()) ?? '', /^1[78]\d\d s$/);
    const looked = (await callApi(secretsApi('sys/leases/lookup'), 'PUT', 'X-Secrets-Token', { lease_id: read.lease_id })) as {
      data: { last_renewal: string | null };
    };
    assert.notEqual(looked.data.last_renewal, null);
    await shoot(page, '23-leases-renewed');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Revoked the lease ${read.lease_id}.` })
      .waitFor();
    const gone = await tryApi('sys/leases/lookup', 'PUT', { lease_id: read.lease_id });
    assert.equal(gone.status, 400);
    assert.deepEqual(gone.body?.errors, ['invalid lease']);
    // The folder is empty now: the list says so.
    await page.getByText('No leases under leased/app/.').waitFor();
    // Looking up the revoked lease shows the server's error.
    await page.getByLabel('Lease ID').fill(read.lease_id);
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid lease' }).waitFor();

    // Two more reads, then every lease under the mount revoked at once (after a confirmation).
    await callApi(secretsApi('leased/app'), 'GET', 'X-Secrets-Token');
    await callApi(secretsApi('leased/app'), 'GET', 'X-Secrets-Token');
    await page.getByLabel('Prefix').fill('leased');
    await page.getByRole('button', { name: 'Browse' }).click();
    await page.getByRole('button', { name: 'app/' }).click();
    const items = page.getByRole('list', { name: 'Leases under leased/app/' }).getByRole('listitem');
    await items.nth(1).waitFor();
    assert.equal(await items.count(), 2);
    await page.getByRole('button', { name: 'Up one level' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke all under prefix' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked every lease under leased/.' }).waitFor();
    await page.getByText('No leases under leased/.').waitFor();
    assert.equal((await tryApi('sys/leases/lookup/leased/app?list=true', 'GET')).status, 404);
  });

  it("wraps JSON, looks the token up, rewraps it, unwraps once, and shows the server's error on the second unwrap", async () => {
    await page.getByRole('link', { name: 'Wrapping' }).click();
    await page.getByLabel('Data to wrap (a JSON object)').fill('{"hello": "world", "n": 2}');
    // Submitted from the keyboard: Enter in the TTL field.
    await page.getByLabel('TTL').fill('10m');
    await page.getByLabel('TTL').press('Enter');
    await page.getByRole('button', { name: 'Reveal wrapping token' }).click();
    const first = (await page.getByTestId('value-wrapping token').textContent()) ?? '';
    assert.match(first, /\S{10,}/);

    const lookup = page.getByRole('region', { name: 'Look up a wrapping token' });
    await lookup.getByLabel('Wrapping token', { exact: true }).fill(first);
    await lookup.getByRole('button', { name: 'Look up' }).click();
    const facts = (await page.getByTestId('wrap-lookup').textContent()) ?? '';
    assert.match(facts, /Created bysys\/wrapping\/wrap/);
    assert.match(facts, /TTL600 s/);

    const rewrap = page.getByRole('region', { name: 'Rewrap a token' });
    await rewrap.getByLabel('Wrapping token', { exact: true }).fill(first);
    await rewrap.getByRole('button', { name: 'Rewrap' }).click();
    await rewrap.getByRole('button', { name: 'Reveal wrapping token' }).click();
    const second = (await rewrap.getByTestId('value-wrapping token').textContent()) ?? '';
    assert.notEqual(second, first);
    assert.equal((await tryApi('sys/wrapping/lookup', 'POST', { token: first })).status, 400);

    const unwrap = page.getByRole('region', { name: 'Unwrap a token' });
    await unwrap.getByLabel('Wrapping token', { exact: true }).fill(second);
    await unwrap.getByRole('button', { name: 'Unwrap' }).click();
    assert.deepEqual(JSON.parse((await page.getByTestId('unwrapped').textContent()) ?? ''), { hello: 'world', n: 2 });
    await axeCheck(page, 'wrapping');
    await shoot(page, '24-wrapping-unwrapped');
    await unwrap.getByRole('button', { name: 'Unwrap' }).click();
    await unwrap.getByRole('alert').filter({ hasText: 'wrapping token is not valid or does not exist' }).waitFor();
    assert.equal(await page.getByTestId('unwrapped').count(), 0);
    await shoot(page, '25-wrapping-second-unwrap');

    // Not a JSON object: said before anything is sent.
    await page.getByLabel('Data to wrap (a JSON object)').fill('[1, 2]');
    await page.getByRole('button', { name: 'Wrap', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'must be a JSON object' }).waitFor();
  });

  it("edits a secret's metadata: a bad duration refused, then the settings and custom metadata stored", async () => {
    await callApi(secretsApi('secret/data/meta/one'), 'POST', 'X-Secrets-Token', { data: { a: '1' } });
    await page.getByRole('link', { name: 'Engines' }).click();
    await page.getByRole('link', { name: 'secret/' }).click();
    await page.getByRole('link', { name: 'meta/' }).click();
    await page.getByRole('link', { name: 'one' }).click();
    await page.getByRole('heading', { name: 'Version 1 (current)' }).waitFor();
    assert.match((await page.getByTestId('kv-metadata').textContent()) ?? '', /Check-and-set requiredno/);
    await page.getByRole('button', { name: 'Edit metadata' }).click();
    await page.getByLabel('Versions kept').fill('5');
    await page.getByLabel('Require check-and-set on every write').check();
    await page.getByLabel('Delete versions after').fill('soon');
    await page.getByRole('button', { name: 'Add metadata row' }).click();
    await page.getByLabel('Metadata key 1').fill('owner');
    await page.getByLabel('Metadata value 1').fill('team-a');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /delete_version_after|soon/ })
      .waitFor();
    const unchanged = (await callApi(secretsApi('secret/metadata/meta/one'), 'GET', 'X-Secrets-Token')) as {
      data: { max_versions: number; custom_metadata: unknown };
    };
    assert.equal(unchanged.data.max_versions, 0);
    assert.equal(unchanged.data.custom_metadata, null);
    await axeCheck(page, 'metadata editor');
    await shoot(page, '26-kv-metadata-error');

    await page.getByLabel('Delete versions after').fill('720h');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByTestId('kv-metadata').filter({ hasText: 'owner' }).waitFor();
    const stored = (await callApi(secretsApi('secret/metadata/meta/one'), 'GET', 'X-Secrets-Token')) as {
      data: { max_versions: number; cas_required: boolean; delete_version_after: string; custom_metadata: unknown };
    };
    assert.deepEqual(
      { max: stored.data.max_versions, cas: stored.data.cas_required, after: stored.data.delete_version_after, custom: stored.data.custom_metadata },
      { max: 5, cas: true, after: '720h0m0s', custom: { owner: 'team-a' } },
    );
    const shown = (await page.getByTestId('kv-metadata').textContent()) ?? '';
    assert.match(shown, /Versions kept5/);
    assert.match(shown, /Check-and-set requiredyes/);
    assert.match(shown, /Delete versions after720h0m0s/);
    assert.match(shown, /Custom metadataownerteam-a/);
    await axeCheck(page, 'metadata saved');
    await shoot(page, '27-kv-metadata-saved');
  });

  it('shows the HA status of the dev server, and the new screens pass axe in the dark theme', async () => {
    await page.getByRole('link', { name: 'HA status' }).click();
    await page.getByTestId('ha-role').filter({ hasText: 'active (HA not enabled: a single server)' }).waitFor();
    assert.equal(await page.getByTestId('ha-active').textContent(), 'this server');
    await axeCheck(page, 'HA status');
    await shoot(page, '28-ha-status');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    for (const [link, heading, shot] of [
      ['Audit devices', 'Audit devices', '29-audit-dark'],
      ['Leases', 'Leases', '30-leases-dark'],
      ['Wrapping', 'Response wrapping', '31-wrapping-dark'],
      ['HA status', 'High availability', '32-ha-dark'],
    ]) {
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      await axeCheck(page, `${heading}, dark theme`);
      await shoot(page, shot);
    }
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  });

  it("says the audit and HA screens work in the root namespace only, with the server's refusal", async () => {
    await callApi(secretsApi('sys/namespaces/team'), 'POST', 'X-Secrets-Token', {});
    await page.getByRole('textbox', { name: 'Namespace' }).fill('team');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    for (const [link, what] of [
      ['Audit devices', 'Audit devices are managed only in the root namespace; this tab works in team.'],
      ['HA status', 'The HA status is served only in the root namespace; this tab works in team.'],
    ]) {
      await page.getByRole('link', { name: link }).click();
      // Waited for: the previous tab's note stays until the new screen renders.
      await page.getByTestId('root-only').filter({ hasText: what }).waitFor();
      assert.match((await page.getByTestId('root-only').textContent()) ?? '', new RegExp(`^${what}`));
      await page.getByRole('alert').filter({ hasText: 'operation unavailable in namespaces' }).waitFor();
    }
    await shoot(page, '33-ha-in-namespace');
    await page.getByRole('textbox', { name: 'Namespace' }).fill('');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    await page.getByTestId('ha-role').waitFor();
    assert.equal(await page.getByTestId('root-only').count(), 0);
    assert.deepEqual(tab.errors, []);
  });
});
