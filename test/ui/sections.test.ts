/**
 * Production servers of the discovery service and the scheduler serve their own section
 * of the web UI (issue 18): `ui_config { enabled = true }` / `ui { enabled = true }` in the
 * agent's config; `/ui/config.json` names that section only; in Chromium a user logs in
 * with the service's own token and lands on the overview with that service's card only,
 * then opens its screen, with no other section, no secrets namespace switcher, no axe
 * finding and no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { parseMeshAgentConfig } from '../../src/services/mesh/config.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';
import { startAgent as startMeshAgent } from '../mesh/helpers.js';
import { ROOT, startAgent as startSchedAgent } from '../sched/helpers.js';
import { axeCheck, launchBrowser, newPage, shoot } from './harness.js';

describe('web UI sections on the discovery and scheduler servers', { timeout: 120_000 }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("reads ui_config { enabled } and ui { enabled } from the agents' configs (default off)", () => {
    assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"\nui_config { enabled = true }', 'agent.hcl').ui, true);
    assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"', 'agent.hcl').ui, false);
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/x"\nui { enabled = true }', 'agent.hcl').ui, true);
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/x"', 'agent.hcl').ui, false);
  });

  for (const { section, heading, card, link, start } of [
    { section: 'mesh', heading: 'Services', card: 'discovery', link: 'Discovery', start: () => startMeshAgent({ initialManagement: ROOT }, { ui: true }) },
    { section: 'sched', heading: 'Event stream', card: 'scheduler', link: 'Scheduler', start: () => startSchedAgent({ ui: true }) },
  ]) {
    it(`the ${section} server serves its section; login with its token opens it`, async (t) => {
      const agent = await start();
      t.after(() => agent.stop());
      assert.deepEqual(await (await fetch(`${agent.url}/ui/config.json`)).json(), { sections: { [section]: '' } });
      const { page, errors } = await newPage(browser, [
        { status: 403, method: 'GET', path: /^\/v1\/acl\/token\/self$/, why: 'a wrong token is refused on purpose at login' },
        {
          status: 404,
          method: 'GET',
          path: /^\/v1\/namespaces$/,
          why: 'the discovery section asks for namespaces to offer its switcher; this agent has none (404) and the switcher stays hidden',
        },
      ]);
      await page.goto(`${agent.url}/ui/`);
      assert.equal(await page.getByLabel('Username and password').count(), 0);
      await page.getByRole('textbox', { name: 'Token' }).fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await page.getByRole('textbox', { name: 'Token' }).fill(ROOT);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.getByTestId(`card-${card}`).waitFor();
      assert.equal(await page.locator('[data-testid^="card-"]').count(), 1, 'one card: the only service this origin reaches');
      await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Secrets' }).count(), 0);
      assert.equal(await page.getByRole('textbox', { name: 'Namespace' }).count(), 0);
      await axeCheck(page, `${section} server UI`);
      await shoot(page, `30-${section}-server-ui`);
      assert.deepEqual(errors, []);
    });
  }
});
