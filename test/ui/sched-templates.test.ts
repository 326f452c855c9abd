/**
 * A task's templates and workload identities on the allocation screen (issue 27 scope 8), in
 * Chromium against a real `cairn dev` whose client runs two jobs with a `vault {}` block and a
 * template reading a KV secret: `ui-tpl` may read `secret/data/default/ui-tpl/*` (the dev
 * wiring's templated policy), so its template renders; `ui-other` reads the same path, is
 * refused by the policy, and its template waits, naming the secret. The screen shows each
 * template's destination and state and the task's identity's expiry — never the rendered
 * content. Each screen is screenshot and checked with axe-core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const PASSWORD = 'ui-s3cr3t-value';

/** A job `name` whose task renders the `ui-tpl` job's secret into `secrets/db.txt`, with an identity file of 1 h. */
const jobHcl = (name: string) => `job "${name}" {
  group "app" {
    task "app" {
      driver = "raw_exec"
      vault {}
      identity {
        file = true
        ttl  = "1h"
      }
      template {
        data        = "{{ with secret \\"secret/data/default/ui-tpl/db\\" }}{{ .Data.data.password }}{{ end }}"
        destination = "secrets/db.txt"
      }
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
`;

describe('web UI: templates and workload identities of a task', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;

  /** The ID of job `name`'s one allocation, once placed. */
  const allocOf = async (name: string): Promise<string> => {
    for (let i = 0; i < 200; i++) {
      const [stub] = (await callApi(sched(`job/${name}/allocations`), 'GET', 'X-Sched-Token')) as { ID: string }[];
      if (stub) return stub.ID;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no allocation of ${name}`);
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser);
    page = tab.page;
    await callApi(`${dev.printed['Secrets service']}/v1/secret/data/default/ui-tpl/db`, 'POST', 'X-Secrets-Token', { data: { password: PASSWORD } });
    for (const name of ['ui-tpl', 'ui-other']) {
      const job = await callApi(sched('jobs/parse'), 'POST', 'X-Sched-Token', { JobHCL: jobHcl(name), Canonicalize: true });
      await callApi(sched('jobs'), 'POST', 'X-Sched-Token', { Job: job });
    }
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it("shows a rendered template and the identity's expiry, never the secret", async () => {
    const id = await allocOf('ui-tpl');
    await page.goto(`${dev.ui}scheduler/allocations/${id}?namespace=default`);
    await page.getByRole('heading', { name: `Allocation ${id.slice(0, 8)}` }).waitFor();
    const templates = page.getByTestId('task-templates-app');
    await templates.getByRole('row').filter({ hasText: 'secrets/db.txt' }).filter({ hasText: 'rendered' }).waitFor({ timeout: 60_000 });
    assert.deepEqual(await templates.getByRole('columnheader').allTextContents(), ['Destination', 'State', 'Last rendered']);
    assert.notEqual((await templates.getByRole('row').nth(1).getByRole('cell').nth(2).textContent())?.trim(), 'never');
    const identities = page.getByTestId('task-identities-app');
    const row = identities.getByRole('row').filter({ hasText: 'default' });
    await row.waitFor();
    const expires = (await row.getByRole('cell').nth(1).textContent()) ?? '';
    assert.notEqual(expires.trim(), 'never', 'a 1 h identity has an expiry');
    await page.getByTestId('task-state-app').filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.ok(!(await page.content()).includes(PASSWORD), 'the rendered secret is nowhere on the page');
    await axeCheck(page, 'allocation with a rendered template');
    await shoot(page, '39-sched-allocation-template-rendered');
  });

  it('shows a template refused by the policy as waiting on the secret it names', async () => {
    const id = await allocOf('ui-other');
    await page.goto(`${dev.ui}scheduler/allocations/${id}?namespace=default`);
    await page.getByRole('heading', { name: `Allocation ${id.slice(0, 8)}` }).waitFor();
    const state = page.getByTestId('template-state-app-secrets/db.txt');
    await state.filter({ hasText: 'waiting on secret.read(secret/data/default/ui-tpl/db)' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('task-state-app').textContent(), 'pending', 'the task waits for its first render');
    await page
      .getByTestId('task-events-app')
      .getByRole('cell', { name: 'Missing: secret.read(secret/data/default/ui-tpl/db)' })
      .first()
      .waitFor({ timeout: 30_000 });
    await axeCheck(page, 'allocation with a waiting template');
    await shoot(page, '40-sched-allocation-template-waiting');
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
