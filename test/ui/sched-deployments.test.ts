/**
 * A service job's deployment panel in the web UI (issue 29), in Chromium against a real
 * `cairn dev` whose client runs the job's `raw_exec` tasks: the job's first version deploys
 * and is shown with its progress; a new version with an `update` block asking one canary
 * places it, and once the canary is marked healthy (`health_check = "manual"`: through
 * `POST /v1/deployment/allocation-health/:id`, so the dev client's own health tracker stays
 * out of it and each step can be seen) the panel says the deployment requires manual
 * promotion; Pause and Resume act on it; Promote (after the confirmation)
 * promotes it, and the panel shows the group promoted and the deployment completing. The
 * panel is screenshot and checked with axe-core; no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { until } from '../processes.js';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

/** A service job of two allocations whose updates go one at a time behind one canary, promoted by hand; `release` (an environment variable: a change that replaces allocations) tells versions apart. */
const job = (release: string) => `job "ui-canary" {
  group "web" {
    count = 2
    update {
      max_parallel     = 1
      canary           = 1
      health_check     = "manual"
      min_healthy_time = "1s"
      auto_promote     = false
    }
    task "run" {
      driver = "raw_exec"
      env {
        RELEASE = "${release}"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "sleep 300"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
`;

interface AllocStub {
  ID: string;
  ClientStatus: string;
  DesiredStatus: string;
  DeploymentStatus?: { Healthy: boolean | null; Canary: boolean } | null;
}

describe('web UI: a job deployment with a canary', { timeout: 240_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;

  /** Registers version `release` of the job from its HCL. */
  const register = async (release: string) => {
    const parsed = await callApi(sched('jobs/parse'), 'POST', 'X-Sched-Token', { JobHCL: job(release), Canonicalize: true });
    await callApi(sched('jobs'), 'POST', 'X-Sched-Token', { Job: parsed });
  };
  /** The job's allocations of the latest deployment that run and have no health yet (waits for `n` of them). */
  const awaitingHealth = (n: number) =>
    until(
      `${n} running allocation(s) of the latest deployment`,
      60_000,
      async () => {
        const d = (await callApi(sched('job/ui-canary/deployment'), 'GET', 'X-Sched-Token')) as { ID: string } | null;
        if (!d) return undefined;
        const allocs = (await callApi(sched(`deployment/allocations/${d.ID}`), 'GET', 'X-Sched-Token')) as AllocStub[];
        const ready = allocs.filter((a) => a.DesiredStatus === 'run' && a.ClientStatus === 'running' && a.DeploymentStatus?.Healthy == null);
        return ready.length >= n ? ready.slice(0, n) : undefined;
      },
      200,
    );
  /** Marks allocations healthy in the latest deployment (`health_check = "manual"`: an operator's call through the API). */
  const reportHealthy = async (allocs: AllocStub[]) => {
    const d = (await callApi(sched('job/ui-canary/deployment'), 'GET', 'X-Sched-Token')) as { ID: string };
    await callApi(sched(`deployment/allocation-health/${d.ID}`), 'POST', 'X-Sched-Token', {
      DeploymentID: d.ID,
      HealthyAllocationIDs: allocs.map((a) => a.ID),
    });
  };

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it("shows the first version's deployment progressing to success", async () => {
    await register('1');
    await page.goto(`${dev.ui.replace(/\/ui\/$/, '')}/ui/scheduler/jobs/ui-canary`);
    const status = page.getByTestId('deployment-status');
    await status.filter({ hasText: 'running' }).waitFor();
    const web = page.getByTestId('deployment-group-web');
    // The progress is said in words, not only drawn: none healthy of the two desired yet.
    await web.getByText('0 of 2 healthy').waitFor();
    await reportHealthy(await awaitingHealth(1));
    await web.getByText('1 of 2 healthy').waitFor();
    await axeCheck(page, 'deployment in progress');
    await shoot(page, '40-sched-deployment-progress');
    await reportHealthy(await awaitingHealth(1));
    await status.filter({ hasText: 'successful' }).waitFor();
    await page.getByTestId('deployment-description').filter({ hasText: 'Deployment completed successfully' }).waitFor();
    // A finished deployment offers no action.
    assert.equal(await page.getByRole('button', { name: /deployment|canaries/ }).count(), 0);
  });

  it('places a canary for a new version, waits for its promotion, and promotes it', async () => {
    await register('2');
    const status = page.getByTestId('deployment-status');
    const web = page.getByTestId('deployment-group-web');
    await page.getByTestId('job-deployment').getByText('of job version 1').waitFor();
    await web.getByRole('cell', { name: '1 of 1', exact: true }).waitFor();
    await reportHealthy(await awaitingHealth(1));
    await page.getByTestId('deployment-description').filter({ hasText: 'Deployment is running but requires manual promotion' }).waitFor();
    assert.equal(await web.getByRole('cell', { name: 'no', exact: true }).count(), 1);
    await axeCheck(page, 'deployment awaiting promotion');
    await shoot(page, '41-sched-deployment-canary');
    // Paused, it offers Resume (and no Promote); resumed, it waits for its promotion again.
    await page.getByRole('button', { name: 'Pause deployment' }).click();
    await status.filter({ hasText: 'paused' }).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: /^Deployment [0-9a-f]{8} paused\.$/ })
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Promote canaries' }).count(), 0);
    await page.getByRole('button', { name: 'Resume deployment' }).click();
    await page.getByTestId('deployment-description').filter({ hasText: 'Deployment is running but requires manual promotion' }).waitFor();

    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Promote canaries' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Deployment [0-9a-f]{8} promoted\.$/ })
      .waitFor();
    assert.match(asked[0] ?? '', /^Promote the canaries of deployment [0-9a-f]{8}\?/);
    await web.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    const d = (await callApi(sched('job/ui-canary/deployment'), 'GET', 'X-Sched-Token')) as {
      JobVersion: number;
      TaskGroups: Record<string, { Promoted: boolean }>;
    };
    assert.deepEqual([d.JobVersion, d.TaskGroups.web.Promoted], [1, true]);
    await shoot(page, '42-sched-deployment-promoted');
    // The rest of the update goes on: the second allocation of version 1 is placed; healthy, the deployment completes.
    await reportHealthy(await awaitingHealth(1));
    await status.filter({ hasText: 'successful' }).waitFor();
    await web.getByText('2 of 2 healthy').waitFor();
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
