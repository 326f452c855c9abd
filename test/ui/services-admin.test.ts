/**
 * The web UI's discovery key/value and ACL screens and the scheduler's CSI and ACL screens
 * in Chromium against a real `cairn dev` (issue 18), through the secrets listener's dev
 * proxy: a key edited with a stale `cas` shows the conflict, then saves after a reload; a
 * lock shows its session; a discovery ACL policy with an error shows the server's message,
 * then saves fixed, and a token is created with it; 300 CSI volumes are paged 25 at a time
 * (`per_page`/`next_token`, never all), filtered with a bexpr expression, a bad filter's
 * error shown; a scheduler ACL policy and token are created the same way. Every screen is
 * screenshot and checked with axe-core; no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, ROOT_TOKEN, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const VOLUMES = 300;
const volId = (i: number) => `ui-vol-${String(i).padStart(3, '0')}`;

describe('web UI: discovery key/value and ACL, scheduler CSI and ACL', { timeout: 240_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const mesh = (path: string) => `${dev.printed['Discovery']}/v1/${path}`;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;
  const meshNav = () => page.getByRole('navigation', { name: 'Discovery' });
  const schedNav = () => page.getByRole('navigation', { name: 'Scheduler' });
  const aclNav = () => page.getByRole('navigation', { name: 'ACL objects' });
  /** Writes a KV value as raw text with the root token; returns the key's new ModifyIndex. */
  const putKv = async (key: string, value: string, query = ''): Promise<void> => {
    const res = await fetch(mesh(`kv/${key}${query}`), { method: 'PUT', headers: { 'X-Mesh-Token': ROOT_TOKEN }, body: value });
    assert.equal(await res.text(), 'true');
  };
  const kvValue = async (key: string) => await (await fetch(mesh(`kv/${key}?raw`), { headers: { 'X-Mesh-Token': ROOT_TOKEN } })).text();
  /** Replaces the HCL editor's text with `text` by typing it. */
  const typeRules = async (text: string) => {
    const editor = page.getByRole('textbox', { name: 'Rules (HCL)' });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await editor.pressSequentially(text, { delay: 0 });
  };

  /** Closes the editor's open block. */
  const closeRules = async () => {
    await page.getByRole('textbox', { name: 'Rules (HCL)' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('}');
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      {
        status: 404,
        method: 'GET',
        path: /^\/ui\/proxy\/mesh\/v1\/kv\/app\/created$/,
        why: "a new key's screen reads the key, which does not exist yet: the form starts empty with cas 0",
      },
      { status: 400, method: 'PUT', path: /^\/ui\/proxy\/mesh\/v1\/acl\/policy$/, why: 'a discovery ACL policy with an error is sent on purpose' },
      { status: 400, method: 'GET', path: /^\/ui\/proxy\/sched\/v1\/volumes\?type=csi&per_page=25&filter=/, why: 'a bad volume filter is sent on purpose' },
      { status: 400, method: 'POST', path: /^\/ui\/proxy\/sched\/v1\/acl\/policy\/ui-ops$/, why: 'a scheduler ACL policy with an error is sent on purpose' },
    ]);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('browses the key/value store, explains a stale cas, shows a lock', async () => {
    await putKv('app/config', 'colour = blue');
    await putKv('app/db/url', 'postgres://db');
    const session = (await callApi(mesh('session/create'), 'PUT', 'X-Mesh-Token', { Name: 'ui-leader' })) as { ID: string };
    await putKv('app/leader', 'me', `?acquire=${session.ID}`);

    await page.getByRole('link', { name: 'Discovery' }).click();
    await meshNav().getByRole('link', { name: 'Key/value' }).click();
    await page.getByTestId('kv-keys').getByRole('link', { name: 'app/' }).click();
    const keys = page.getByTestId('kv-keys');
    await keys.getByRole('link', { name: 'db/' }).waitFor();
    await axeCheck(page, 'kv folder');
    await shoot(page, '30-discovery-kv-folder');

    await keys.getByRole('link', { name: 'config' }).click();
    const value = page.getByLabel('Value');
    await assert.doesNotReject(value.waitFor());
    assert.equal(await value.inputValue(), 'colour = blue');
    const readAt = await page.getByTestId('kv-index').textContent();
    assert.equal(await page.getByLabel('Index (cas)').inputValue(), readAt);
    // Someone else writes the key after the page read it: the page's cas is stale.
    await putKv('app/config', 'colour = green');
    await value.fill('colour = red');
    await page.getByLabel('Flags').fill('42');
    await page.getByRole('button', { name: 'Save' }).click();
    const result = page.getByTestId('kv-result');
    await result.filter({ hasText: `the key changed since index ${readAt}` }).waitFor();
    assert.equal(await kvValue('app/config'), 'colour = green');
    await axeCheck(page, 'kv key with a cas conflict');
    await shoot(page, '31-discovery-kv-cas-conflict');

    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByLabel('Value').filter({ hasText: 'colour = green' }).waitFor();
    await page.getByLabel('Value').fill('colour = red');
    await page.getByLabel('Flags').fill('42');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const [entry] = (await callApi(mesh('kv/app/config'), 'GET', 'X-Mesh-Token')) as Array<{ Flags: number }>;
    assert.equal(entry.Flags, 42);
    assert.equal(await kvValue('app/config'), 'colour = red');

    await page.getByRole('navigation', { name: 'Key path' }).getByRole('link', { name: 'app' }).click();
    await keys.getByRole('link', { name: 'leader' }).click();
    await page.getByTestId('kv-lock').filter({ hasText: session.ID }).filter({ hasText: 'ui-leader' }).waitFor();
    await shoot(page, '32-discovery-kv-lock');

    // A new key from the folder (cas 0: only if absent), then deleted after the confirm dialog.
    await page.getByRole('navigation', { name: 'Key path' }).getByRole('link', { name: 'app' }).click();
    await page.getByLabel('New key under app/').fill('created');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key app/created' }).waitFor();
    assert.equal(await page.getByLabel('Index (cas)').inputValue(), '0');
    await page.getByLabel('Value').fill('hello');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    assert.equal(await kvValue('app/created'), 'hello');
    await page.getByRole('button', { name: 'Delete' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await keys.getByRole('link', { name: 'config' }).waitFor();
    assert.equal(await keys.getByRole('link', { name: 'created' }).count(), 0);
    assert.equal((await fetch(mesh('kv/app/created'), { headers: { 'X-Mesh-Token': ROOT_TOKEN } })).status, 404);
  });

  it('edits a discovery ACL policy with an error, fixes it, and makes a token with it', async () => {
    await meshNav().getByRole('link', { name: 'ACL' }).click();
    await page.getByTestId('acl-tokens').waitFor();
    await axeCheck(page, 'discovery ACL tokens');
    await shoot(page, '33-discovery-acl-tokens');
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'Create policy' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('ui-kv');
    // The block is left open: the server's parse error names line 3.
    await typeRules('key_prefix "app/" {\npolicy = "read"\n');
    await page.getByRole('button', { name: 'Save policy' }).click();
    const error = page.getByTestId('acl-policy-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /^Line 3: Failed to parse ACL rules: .*RBRACE/);
    await axeCheck(page, 'discovery policy with an error');
    await shoot(page, '34-discovery-acl-policy-error');
    await closeRules();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('heading', { name: 'Policy ui-kv' }).waitFor();
    const policies = (await callApi(mesh('acl/policies'), 'GET', 'X-Mesh-Token')) as Array<{ Name: string }>;
    assert.ok(policies.some((p) => p.Name === 'ui-kv'));

    await aclNav().getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('link', { name: 'Create token' }).click();
    await page.getByLabel('Description').fill('ui kv reader');
    await page.getByRole('checkbox', { name: 'ui-kv' }).check();
    await axeCheck(page, 'discovery token form');
    await page.getByRole('button', { name: 'Create token' }).click();
    const accessor = (await page.getByTestId('acl-token-accessor').textContent()) ?? '';
    const token = (await callApi(mesh(`acl/token/${accessor}`), 'GET', 'X-Mesh-Token')) as {
      Description: string;
      SecretID: string;
      Policies: Array<{ Name: string }>;
    };
    assert.equal(token.Description, 'ui kv reader');
    assert.deepEqual(
      token.Policies.map((p) => p.Name),
      ['ui-kv'],
    );
    await page.getByRole('link', { name: 'Open the token' }).click();
    await page.getByText('ui kv reader').first().waitFor();
    // The secret stays hidden until revealed.
    assert.equal(await page.getByTestId('value-SecretID').textContent(), '••••••••');
    await page.getByRole('button', { name: 'Reveal SecretID' }).click();
    assert.equal(await page.getByTestId('value-SecretID').textContent(), token.SecretID);
    await axeCheck(page, 'discovery token');
    await shoot(page, '35-discovery-acl-token');

    // Delete (after the confirm dialog) of a policy made through the API.
    await callApi(mesh('acl/policy'), 'PUT', 'X-Mesh-Token', { Name: 'ui-tmp', Rules: 'key_prefix "" { policy = "read" }' });
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    await page.getByTestId('acl-policies').getByRole('link', { name: 'ui-tmp' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete policy' }).click();
    await page.getByRole('heading', { name: 'ACL policies' }).waitFor();
    await page.getByTestId('acl-policies').getByRole('link', { name: 'ui-kv' }).waitFor();
    assert.equal(await page.getByTestId('acl-policies').getByRole('link', { name: 'ui-tmp' }).count(), 0);
    const left = (await callApi(mesh('acl/policies'), 'GET', 'X-Mesh-Token')) as Array<{ Name: string }>;
    assert.ok(!left.some((p) => p.Name === 'ui-tmp'));

    await callApi(mesh('acl/role'), 'PUT', 'X-Mesh-Token', { Name: 'ui-role', Policies: [{ Name: 'ui-kv' }] });
    await aclNav().getByRole('link', { name: 'Roles' }).click();
    await page.getByTestId('acl-roles').getByRole('link', { name: 'ui-role' }).click();
    await page.getByRole('heading', { name: 'Role ui-role' }).waitFor();
    await axeCheck(page, 'discovery role');
    // The auth method and binding rules `cairn dev` wires for workload identities (src/services/dev-workloads.ts).
    for (const [kind, slug, wired] of [
      ['Auth methods', 'auth-methods', 1],
      ['Binding rules', 'binding-rules', 2],
    ] as const) {
      await aclNav().getByRole('link', { name: kind }).click();
      await page.getByRole('heading', { name: `ACL ${kind.toLowerCase()}` }).waitFor();
      const shown = page.getByTestId(`acl-${slug}`).getByRole('cell', { name: 'cairn-workloads', exact: true });
      await shown.first().waitFor();
      assert.equal(await shown.count(), wired);
      await axeCheck(page, `discovery ${kind}`);
    }
  });

  it('pages through CSI volumes, filters them, shows a bad filter and a volume', async () => {
    const specs = Array.from({ length: VOLUMES }, (_, i) => ({
      ID: volId(i),
      PluginID: 'hostpath',
      Parameters: { tier: i % 4 === 0 ? 'gold' : 'silver' },
      RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }],
    }));
    // One create per volume (the path names it), 20 at a time, through the public API.
    for (let i = 0; i < VOLUMES; i += 20)
      await Promise.all(specs.slice(i, i + 20).map((v) => callApi(sched(`volume/csi/${v.ID}/create`), 'PUT', 'X-Sched-Token', { Volumes: [v] })));

    await page.getByRole('link', { name: 'Scheduler' }).click();
    await schedNav().getByRole('link', { name: 'CSI plugins' }).click();
    await page.getByTestId('plugins').getByText('1/1 healthy').first().waitFor();
    await axeCheck(page, 'CSI plugins');
    await shoot(page, '36-sched-csi-plugins');
    await page.getByTestId('plugins').getByRole('link', { name: 'hostpath' }).click();
    await page.getByRole('heading', { name: 'Snapshots' }).waitFor();
    await page.getByText(/No snapshots\.|does not support/).waitFor();
    await axeCheck(page, 'CSI plugin');
    await shoot(page, '37-sched-csi-plugin');

    const pages: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/volumes?')) pages.push(decodeURIComponent(r.url()));
    });
    await schedNav().getByRole('link', { name: 'CSI volumes' }).click();
    const table = page.getByTestId('volumes');
    const rows = table.locator('tbody tr');
    await table.getByRole('link', { name: volId(0), exact: true }).waitFor();
    assert.equal(await rows.count(), 25);
    await axeCheck(page, 'CSI volumes');
    await shoot(page, '38-sched-csi-volumes');
    await page.getByRole('button', { name: 'Next page' }).click();
    await table.getByRole('link', { name: volId(25), exact: true }).waitFor();
    assert.equal(await rows.count(), 25);
    await page.getByRole('button', { name: 'Next page' }).click();
    await table.getByRole('link', { name: volId(50), exact: true }).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await table.getByRole('link', { name: volId(25), exact: true }).waitFor();
    // Every request asked for one page; none loaded the whole list.
    assert.ok(pages.length >= 3 && pages.every((u) => u.includes('per_page=25')), pages.join('\n'));
    assert.ok(
      pages.some((u) => u.includes(`next_token=default.${volId(25)}`)),
      pages.join('\n'),
    );

    await page.getByLabel('Filter (bexpr)').fill('Parameters.tier == "gold"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await table.getByRole('link', { name: volId(4), exact: true }).waitFor();
    assert.equal(await rows.count(), 25);
    const ids = await table.locator('tbody tr td:first-child').allTextContents();
    assert.deepEqual(
      ids,
      Array.from({ length: 25 }, (_, i) => volId(i * 4)),
    );
    await shoot(page, '39-sched-csi-volumes-filtered');

    await page.getByLabel('Filter (bexpr)').fill('Parameters.tier ==');
    await page.getByRole('button', { name: 'Apply' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'filter' });
    await alert.waitFor();
    assert.equal(await table.count(), 0);
    await axeCheck(page, 'CSI volumes with a bad filter');
    await shoot(page, '40-sched-csi-volumes-bad-filter');

    await page.getByLabel('Filter (bexpr)').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await table.getByRole('link', { name: volId(1), exact: true }).click();
    await page.getByTestId('volume').getByText('tier=silver').waitFor();
    await axeCheck(page, 'CSI volume');
    await shoot(page, '41-sched-csi-volume');
  });

  it('edits a scheduler ACL policy with an error, fixes it, makes a token, lists roles and auth methods', async () => {
    await schedNav().getByRole('link', { name: 'ACL' }).click();
    await page.getByTestId('acl-tokens').waitFor();
    await axeCheck(page, 'scheduler ACL tokens');
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'Create policy' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('ui-ops');
    await typeRules('namespace "default" {\npolicy = "sometimes"\n}\n');
    await page.getByRole('button', { name: 'Save policy' }).click();
    const error = page.getByTestId('acl-policy-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /sometimes/);
    await axeCheck(page, 'scheduler policy with an error');
    await shoot(page, '42-sched-acl-policy-error');
    await typeRules('namespace "default" {\npolicy = "read"\n');
    await closeRules();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('heading', { name: 'Policy ui-ops' }).waitFor();
    const policy = (await callApi(sched('acl/policy/ui-ops'), 'GET', 'X-Sched-Token')) as { Rules: string };
    assert.match(policy.Rules, /policy = "read"/);

    await aclNav().getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('link', { name: 'Create token' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('ui ops');
    await page.getByRole('checkbox', { name: 'ui-ops' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const accessor = (await page.getByTestId('acl-token-accessor').textContent()) ?? '';
    const token = (await callApi(sched(`acl/token/${accessor}`), 'GET', 'X-Sched-Token')) as { Name: string; Policies: string[] };
    assert.equal(token.Name, 'ui ops');
    assert.deepEqual(token.Policies, ['ui-ops']);
    await shoot(page, '43-sched-acl-token-created');
    await aclNav().getByRole('link', { name: 'Tokens' }).click();
    await page.getByTestId('acl-tokens').getByRole('link', { name: 'ui ops' }).waitFor();
    await shoot(page, '44-sched-acl-tokens');
    // Delete the token from its page, after the confirm dialog.
    await page.getByTestId('acl-tokens').getByRole('link', { name: 'ui ops' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('acl-tokens').waitFor();
    assert.equal(await page.getByTestId('acl-tokens').getByRole('link', { name: 'ui ops' }).count(), 0);
    const gone = await fetch(sched(`acl/token/${accessor}`), { headers: { 'X-Sched-Token': ROOT_TOKEN } });
    assert.equal(gone.status, 404);

    await callApi(sched('acl/role'), 'PUT', 'X-Sched-Token', { Name: 'ui-role', Policies: [{ Name: 'ui-ops' }] });
    await aclNav().getByRole('link', { name: 'Roles' }).click();
    await page.getByTestId('acl-roles').getByRole('link', { name: 'ui-role' }).click();
    await page.getByRole('heading', { name: 'Role ui-role' }).waitFor();
    await axeCheck(page, 'scheduler role');
    for (const kind of ['Auth methods', 'Binding rules']) {
      await aclNav().getByRole('link', { name: kind }).click();
      await page.getByRole('heading', { name: `ACL ${kind.toLowerCase()}` }).waitFor();
      await axeCheck(page, `scheduler ${kind}`);
    }
  });

  it('keeps the new screens legible in the dark theme', async () => {
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await schedNav().getByRole('link', { name: 'CSI volumes' }).click();
    await page.getByTestId('volumes').waitFor();
    await axeCheck(page, 'CSI volumes, dark theme');
    await shoot(page, '45-sched-csi-volumes-dark');
    await page.getByRole('link', { name: 'Discovery' }).click();
    await meshNav().getByRole('link', { name: 'ACL' }).click();
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    await page.getByTestId('acl-policies').getByRole('link', { name: 'ui-kv' }).click();
    await page.locator('.cm-content').waitFor();
    await axeCheck(page, 'discovery policy, dark theme');
    await shoot(page, '46-discovery-acl-policy-dark');
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
