/**
 * The web UI's discovery namespace switcher and the create/delete forms of ACL roles, auth
 * methods and binding rules of the discovery service and the scheduler (issue 18 screens 3
 * and 4), in Chromium against a real `cairn dev`: switching the discovery namespace shows
 * that namespace's ACL policies and keys (`?ns=` on every discovery call) and creates in
 * it; each kind is created through its labelled form (a refusal of the server, or JSON
 * that does not parse, shown under the form, nothing stored), seen through the public API,
 * then deleted from its page. Every new screen is screenshot and checked with axe-core; no
 * console error.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, ROOT_TOKEN, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

/** The discovery role and auth method `cairn dev` wires for workload identities (src/services/dev-workloads.ts); the lists hold them besides what the test makes. */
const DEV_ROLE = 'cairn-tasks-default';
const DEV_METHOD = 'cairn-workloads';

/** A public key the JWT auth methods accept (PEM). */
const PUB_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('web UI: discovery namespaces, ACL create and delete forms', { timeout: 240_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const mesh = (path: string) => `${dev.printed['Discovery']}/v1/${path}`;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;
  const aclNav = () => page.getByRole('navigation', { name: 'ACL objects' });
  const meshGet = async (path: string) => (await callApi(mesh(path), 'GET', 'X-Mesh-Token')) as Array<Record<string, unknown>>;
  const schedGet = async (path: string) => (await callApi(sched(path), 'GET', 'X-Sched-Token')) as Array<Record<string, unknown>>;
  const field = (label: string) => page.getByLabel(label, { exact: true });
  const create = (noun: string) => page.getByRole('button', { name: `Create ${noun}` });
  /** Deletes the object on screen after the confirm dialog; waits for its kind's list. */
  const deleteShown = async (slug: string) => {
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: /^ACL / }).waitFor();
    await page.getByTestId(`acl-${slug}`).or(page.getByText('None.')).waitFor();
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      {
        status: 400,
        method: 'PUT',
        path: /^\/ui\/proxy\/mesh\/v1\/acl\/(role|auth-method|binding-rule)$/,
        why: "the discovery role, auth method and binding rule forms are sent with an unknown policy, bad config or unknown method first: the server's refusal is shown",
      },
      {
        status: 404,
        method: 'GET',
        path: /^\/ui\/proxy\/mesh\/v1\/acl\/role\/[0-9a-f-]{36}$/,
        why: "the deleted role's screen reads it once more as the delete lands, before going back to the list",
      },
      {
        status: 400,
        method: 'POST',
        path: /^\/ui\/proxy\/sched\/v1\/acl\/auth-method$/,
        why: "the scheduler auth method form is sent with a bad config first: the server's refusal is shown",
      },
    ]);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it("switches the discovery namespace: ACL lists and keys are that namespace's, creates land in it", async () => {
    await callApi(mesh('namespace'), 'PUT', 'X-Mesh-Token', { Name: 'team' });
    await callApi(mesh('acl/policy'), 'PUT', 'X-Mesh-Token', { Name: 'in-default', Rules: 'key_prefix "" { policy = "read" }' });
    await callApi(mesh('acl/policy?ns=team'), 'PUT', 'X-Mesh-Token', { Name: 'in-team', Rules: 'key_prefix "" { policy = "read" }' });
    for (const [ns, key] of [
      ['default', 'default-key'],
      ['team', 'team-key'],
    ]) {
      const res = await fetch(mesh(`kv/${key}?ns=${ns}`), { method: 'PUT', headers: { 'X-Mesh-Token': ROOT_TOKEN }, body: 'v' });
      assert.equal(await res.text(), 'true');
    }

    await page.getByRole('link', { name: 'Discovery' }).click();
    await page.getByRole('navigation', { name: 'Discovery' }).getByRole('link', { name: 'ACL' }).click();
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    const policies = page.getByTestId('acl-policies');
    await policies.getByRole('link', { name: 'in-default' }).waitFor();
    assert.equal(await policies.getByRole('link', { name: 'in-team' }).count(), 0);
    // Only the discovery namespace is offered on the discovery screens (known ones suggested: a combobox).
    assert.equal(await page.getByRole('textbox', { name: 'Namespace', exact: true }).count(), 0);
    await page.getByRole('combobox', { name: 'Discovery namespace' }).fill('team');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    await policies.getByRole('link', { name: 'in-team' }).waitFor();
    assert.equal(await policies.getByRole('link', { name: 'in-default' }).count(), 0);
    await axeCheck(page, 'discovery policies in namespace team');
    await shoot(page, '60-discovery-namespace-team');

    await page.getByRole('navigation', { name: 'Discovery' }).getByRole('link', { name: 'Key/value' }).click();
    const keys = page.getByTestId('kv-keys');
    await keys.getByRole('link', { name: 'team-key' }).waitFor();
    assert.equal(await keys.getByRole('link', { name: 'default-key' }).count(), 0);

    // A role created while in team is team's.
    await page.getByRole('navigation', { name: 'Discovery' }).getByRole('link', { name: 'ACL' }).click();
    await aclNav().getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('link', { name: 'Create role' }).click();
    await field('Name').fill('team-role');
    await field('Policies').fill('in-team');
    await create('role').click();
    await page.getByRole('heading', { name: 'Role team-role' }).waitFor();
    assert.deepEqual(
      (await meshGet('acl/roles?ns=team')).map((r) => r.Name),
      ['team-role'],
    );
    // In default: only the role `cairn dev` wires for tasks (src/services/dev-workloads.ts).
    assert.deepEqual(
      (await meshGet('acl/roles')).map((r) => r.Name),
      [DEV_ROLE],
    );

    await page.getByRole('combobox', { name: 'Discovery namespace' }).fill('');
    await page.getByRole('button', { name: 'Switch namespace' }).click();
    await aclNav().getByRole('link', { name: 'Policies' }).click();
    await policies.getByRole('link', { name: 'in-default' }).waitFor();
  });

  it("creates and deletes discovery roles, auth methods and binding rules, showing the server's refusals", async () => {
    await aclNav().getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('link', { name: 'Create role' }).click();
    await field('Name').fill('ui-role');
    await field('Description').fill('made in the UI');
    await field('Policies').fill('no-such-policy');
    await create('role').click();
    await page.getByRole('alert').filter({ hasText: 'no-such-policy' }).waitFor();
    await axeCheck(page, 'discovery role form with an error');
    await shoot(page, '61-discovery-role-error');
    await field('Policies').fill('in-default');
    await create('role').click();
    await page.getByRole('heading', { name: 'Role ui-role' }).waitFor();
    const role = (await meshGet('acl/roles')).find((r) => r.Name === 'ui-role')!;
    assert.equal(role.Description, 'made in the UI');
    assert.deepEqual(
      (role.Policies as Array<{ Name: string }>).map((p) => p.Name),
      ['in-default'],
    );
    await deleteShown('roles');
    assert.deepEqual(
      (await meshGet('acl/roles')).map((r) => r.Name),
      [DEV_ROLE],
    );

    await aclNav().getByRole('link', { name: 'Auth methods' }).click();
    await page.getByRole('link', { name: 'Create auth method' }).click();
    await field('Name').fill('ui-jwt');
    await field('Type').selectOption('jwt');
    await field('Display name').fill('UI JWT');
    await field('Config (JSON)').fill('{"JWTValidationPubKeys": [');
    await create('auth method').click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^Config \(JSON\): / })
      .waitFor();
    await field('Config (JSON)').fill('{}');
    await create('auth method').click();
    await page.getByRole('alert').filter({ hasText: 'Invalid Auth Method' }).waitFor();
    assert.deepEqual(
      (await meshGet('acl/auth-methods')).map((m) => m.Name),
      [DEV_METHOD],
    );
    await axeCheck(page, 'discovery auth method form with an error');
    await shoot(page, '62-discovery-auth-method-error');
    await field('Config (JSON)').fill(JSON.stringify({ JWTValidationPubKeys: [PUB_KEY], BoundAudiences: ['cairn'] }));
    await create('auth method').click();
    await page.getByRole('heading', { name: 'Auth method ui-jwt' }).waitFor();
    assert.deepEqual(
      (await meshGet('acl/auth-methods')).filter((m) => m.Name !== DEV_METHOD).map((m) => [m.Name, m.Type, m.DisplayName]),
      [['ui-jwt', 'jwt', 'UI JWT']],
    );

    await aclNav().getByRole('link', { name: 'Binding rules' }).click();
    await page.getByRole('link', { name: 'Create binding rule' }).click();
    await field('Auth method').fill('no-such-method');
    await field('Bind type').selectOption('role');
    await field('Bind name').fill('ops');
    await create('binding rule').click();
    await page.getByRole('alert').waitFor();
    await field('Auth method').fill('ui-jwt');
    await field('Description').fill('ops people');
    await create('binding rule').click();
    await page.getByRole('heading', { name: 'Binding rule ops people' }).waitFor();
    await axeCheck(page, 'discovery binding rule');
    await shoot(page, '63-discovery-binding-rule');
    const rules = async () => (await meshGet('acl/binding-rules')).filter((r) => r.AuthMethod !== DEV_METHOD);
    const [rule] = await rules();
    assert.deepEqual([rule!.AuthMethod, rule!.BindType, rule!.BindName], ['ui-jwt', 'role', 'ops']);
    await deleteShown('binding-rules');
    assert.deepEqual(await rules(), []);

    await aclNav().getByRole('link', { name: 'Auth methods' }).click();
    await page.getByTestId('acl-auth-methods').getByRole('link', { name: 'ui-jwt' }).click();
    await deleteShown('auth-methods');
    assert.deepEqual(
      (await meshGet('acl/auth-methods')).map((m) => m.Name),
      [DEV_METHOD],
    );
  });

  it("creates and deletes scheduler auth methods, binding rules and roles, showing the server's refusals", async () => {
    await page.getByRole('link', { name: 'Scheduler' }).click();
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'ACL' }).click();
    await aclNav().getByRole('link', { name: 'Auth methods' }).click();
    await page.getByRole('link', { name: 'Create auth method' }).click();
    await field('Name').fill('ui-jwt');
    await field('Type').selectOption('JWT');
    await field('Max token TTL').fill('forever');
    await field('Config (JSON)').fill(JSON.stringify({ JWTValidationPubKeys: [PUB_KEY] }));
    await create('auth method').click();
    await page.getByRole('alert').waitFor();
    assert.deepEqual(await schedGet('acl/auth-methods'), []);
    await axeCheck(page, 'scheduler auth method form with an error');
    await shoot(page, '64-sched-auth-method-error');
    await field('Max token TTL').fill('10m');
    await field('Default method').check();
    await create('auth method').click();
    await page.getByRole('heading', { name: 'Auth method ui-jwt' }).waitFor();
    const [method] = await schedGet('acl/auth-methods');
    assert.deepEqual([method.Name, method.Type, method.Default], ['ui-jwt', 'JWT', true]);

    await aclNav().getByRole('link', { name: 'Binding rules' }).click();
    await page.getByRole('link', { name: 'Create binding rule' }).click();
    await field('Auth method').fill('ui-jwt');
    await field('Description').fill('admins');
    await field('Selector').fill('"admins" in list.groups');
    await field('Bind type').selectOption('management');
    await axeCheck(page, 'scheduler binding rule form');
    await create('binding rule').click();
    await page.getByRole('heading', { name: 'Binding rule admins' }).waitFor();
    await shoot(page, '65-sched-binding-rule');
    const [stub] = await schedGet('acl/binding-rules');
    const rule = (await callApi(sched(`acl/binding-rule/${String(stub.ID)}`), 'GET', 'X-Sched-Token')) as Record<string, unknown>;
    assert.deepEqual([rule.AuthMethod, rule.BindType, rule.Description, rule.Selector], ['ui-jwt', 'management', 'admins', '"admins" in list.groups']);
    await deleteShown('binding-rules');
    assert.deepEqual(await schedGet('acl/binding-rules'), []);

    await callApi(sched('acl/policy/ui-ops'), 'POST', 'X-Sched-Token', { Name: 'ui-ops', Rules: 'namespace "default" { policy = "read" }' });
    await aclNav().getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('link', { name: 'Create role' }).click();
    await field('Name').fill('ui-role');
    await field('Policies').fill('ui-ops');
    await create('role').click();
    await page.getByRole('heading', { name: 'Role ui-role' }).waitFor();
    assert.deepEqual(
      (await schedGet('acl/roles')).map((r) => r.Name),
      ['ui-role'],
    );
    await deleteShown('roles');
    assert.deepEqual(await schedGet('acl/roles'), []);

    await aclNav().getByRole('link', { name: 'Auth methods' }).click();
    await page.getByTestId('acl-auth-methods').getByRole('link', { name: 'ui-jwt' }).click();
    await deleteShown('auth-methods');
    assert.deepEqual(await schedGet('acl/auth-methods'), []);
    await shoot(page, '66-sched-auth-methods-empty');
  });

  it('logged no console error', () => {
    assert.deepEqual(tab.errors, []);
  });
});
