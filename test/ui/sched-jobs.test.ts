/**
 * The scheduler's job screens in Chromium against a real `cairn dev` (its client runs
 * `raw_exec`): a job is run from HCL in the editor, seen running, its allocation opened
 * with the task's events and the `echo` in its stdout log; it is stopped (with the
 * confirmation) and seen dead, then purged; HCL with a syntax error, and a job the server's
 * validation refuses, show the server's error next to the editor and register nothing; a
 * job's versions with what changed and a revert; a periodic job's schedule, next launch and
 * a launch now; a parameterized job dispatched from its Dispatch form (the child shown with a
 * link to its screen), and the server's refusal of a dispatch missing a required meta key.
 * Each new screen is screenshot and checked with axe-core; no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const JOB = `job "ui-hello" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    task "say" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello-from-ui; sleep 300"]
      }
    }
  }
}
`;

/** The task groups of a one-task `raw_exec` job running `/bin/sh` with `args`. */
const task = (args: string[]) => [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sh', args } }] }];

/** Replaces the CodeMirror editor's text (it lives in a shadow root; Playwright pierces it). */
async function typeJob(page: Page, hcl: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Job specification (HCL)' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // insertText puts the text as is (typing would auto-indent each new line).
  await page.keyboard.insertText(hcl);
}

describe('web UI: scheduler jobs', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser, [
      {
        status: 400,
        method: 'POST',
        path: /^\/ui\/proxy\/sched\/v1\/jobs\/parse$/,
        why: 'HCL with a syntax error and a job the server finds invalid are sent on purpose',
      },
      {
        status: 404,
        method: 'GET',
        path: /^\/ui\/proxy\/sched\/v1\/job\/ui-hello(\/summary\?|\/versions\?diffs=true&|\/deployment\?|\?)namespace=default$/,
        why: "the purged job's screen reads it (its summary, its versions, its deployment) once more as the purge lands, before going back to the list",
      },
      {
        status: 400,
        method: 'POST',
        path: /^\/ui\/proxy\/sched\/v1\/job\/ui-param\/dispatch\?namespace=default$/,
        why: 'the Dispatch form is sent without the meta key the job requires',
      },
    ]);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('shows the server parse and validation errors next to the editor and registers nothing', async () => {
    await page.getByRole('link', { name: 'Scheduler' }).click();
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByText('No jobs.').waitFor();
    await axeCheck(page, 'scheduler jobs (empty)');
    await page.getByRole('link', { name: 'Run job' }).click();
    await page.getByRole('heading', { name: 'Run job' }).waitFor();
    await typeJob(page, 'job "broken" {\n  group "g" {\n    task "t" {\n      driver = \n    }\n  }\n}\n');
    await page.getByRole('button', { name: 'Run' }).click();
    const error = page.getByTestId('job-error');
    await error.waitFor();
    // The parser names the line; the screen says it and marks it in the editor.
    assert.match((await error.textContent()) ?? '', /^Line \d+: .*syntax error/);
    assert.equal(await page.locator('.cm-error-line').count(), 1);
    await axeCheck(page, 'run job with an error');
    await shoot(page, '30-sched-job-error');
    // Well-formed HCL that the server's validation refuses: its message is shown as is.
    await typeJob(page, 'job "nodriver" {\n  group "g" {\n    task "t" {\n    }\n  }\n}\n');
    await page.getByRole('button', { name: 'Run' }).click();
    await error.filter({ hasText: 'Missing task driver' }).waitFor();
    await shoot(page, '35-sched-job-invalid');
    assert.deepEqual(await callApi(sched('jobs'), 'GET', 'X-Sched-Token'), []);
  });

  it('runs a raw_exec job from HCL, shows its allocation and log, stops it, purges it', async () => {
    await typeJob(page, JOB);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('heading', { name: 'Job ui-hello' }).waitFor();
    await page.getByTestId('job-status').filter({ hasText: 'running' }).waitFor();
    const allocs = page.getByTestId('job-allocations');
    await allocs.getByRole('cell', { name: 'running', exact: true }).waitFor();
    await page.getByTestId('job-evaluations').getByRole('cell', { name: 'complete', exact: true }).first().waitFor();
    await page.getByTestId('job-summary').getByRole('cell', { name: 'web', exact: true }).waitFor();
    await axeCheck(page, 'job detail');
    await shoot(page, '31-sched-job-running');

    await allocs.getByRole('link').first().click();
    await page.getByRole('heading', { name: /^Allocation / }).waitFor();
    await page.getByTestId('task-state-say').filter({ hasText: 'running' }).waitFor();
    await page.getByTestId('task-events-say').getByRole('cell', { name: 'Started', exact: true }).waitFor();
    // The task may not have written its line when the log was first fetched: Refresh until it shows.
    const log = page.getByTestId('log-say');
    for (let i = 0; i < 50 && !((await log.textContent().catch(() => '')) ?? '').includes('hello-from-ui'); i++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(200);
    }
    assert.match((await log.textContent()) ?? '', /hello-from-ui/);
    await axeCheck(page, 'allocation detail');
    await shoot(page, '32-sched-allocation-log');

    await page.getByRole('link', { name: 'ui-hello', exact: true }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByTestId('job-status').filter({ hasText: 'dead' }).waitFor();
    await page.getByTestId('job-allocations').getByRole('cell', { name: 'complete', exact: true }).waitFor();
    await shoot(page, '33-sched-job-stopped');
    const job = (await callApi(sched('job/ui-hello'), 'GET', 'X-Sched-Token')) as { Stop: boolean; Status: string };
    assert.equal(job.Stop, true);
    assert.equal(job.Status, 'dead');

    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByTestId('job-status-ui-hello').filter({ hasText: 'dead' }).waitFor();
    await axeCheck(page, 'scheduler jobs');
    await shoot(page, '34-sched-jobs');

    // Stop + purge removes the job; the screen returns to the (now empty) list.
    await page.getByRole('link', { name: 'ui-hello', exact: true }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Stop + purge' }).click();
    await page.getByText('No jobs.').waitFor();
    assert.deepEqual(await callApi(sched('jobs'), 'GET', 'X-Sched-Token'), []);
  });

  it("shows a job's versions with their changes and reverts one; a periodic job's schedule, next launch and a launch now", async () => {
    for (const args of [
      ['-c', 'exit 0'],
      ['-c', 'echo v1'],
    ])
      await callApi(sched('jobs'), 'POST', 'X-Sched-Token', { Job: { ID: 'ui-versions', Type: 'batch', Meta: { release: args[1] }, TaskGroups: task(args) } });
    await page.goto(`${dev.ui.replace(/\/ui\/$/, '')}/ui/scheduler/jobs/ui-versions`);
    const versions = page.getByTestId('job-versions-table');
    await versions.getByRole('row').nth(2).waitFor();
    await page.getByRole('button', { name: 'Changes in version 1' }).click();
    const diff = page.getByTestId('job-diff');
    await diff.getByText('Meta[release]').waitFor();
    assert.match((await diff.textContent()) ?? '', /changed\s*Meta\[release\]: "exit 0" => "echo v1"/);
    await axeCheck(page, 'job versions');
    await shoot(page, '35-sched-job-versions');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revert to version 0' }).click();
    await page.getByRole('status').filter({ hasText: 'Reverted to version 0.' }).waitFor();
    const job = (await callApi(sched('job/ui-versions'), 'GET', 'X-Sched-Token')) as { Version: number; Meta: Record<string, string> };
    assert.deepEqual([job.Version, job.Meta], [2, { release: 'exit 0' }]);
    await versions.getByRole('row').nth(3).waitFor();

    await callApi(sched('jobs'), 'POST', 'X-Sched-Token', {
      Job: { ID: 'ui-nightly', Type: 'batch', Periodic: { Specs: ['0 3 * * *'], TimeZone: 'UTC', ProhibitOverlap: true }, TaskGroups: task(['-c', 'exit 0']) },
    });
    await page.goto(`${dev.ui.replace(/\/ui\/$/, '')}/ui/scheduler/jobs/ui-nightly`);
    const facts = page.getByTestId('job-periodic');
    await facts.getByText('0 3 * * *').waitFor();
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="next-launch"]')?.textContent ?? ''));
    await page.getByText('No launches yet.').waitFor();
    await page.getByRole('button', { name: 'Launch now' }).click();
    await page
      .getByRole('list', { name: 'Launches of ui-nightly' })
      .getByRole('link', { name: /^ui-nightly\/periodic-\d+$/ })
      .waitFor();
    await axeCheck(page, 'periodic job');
    await shoot(page, '36-sched-periodic-job');
  });

  it("dispatches a parameterized job from its form, links the child; a missing required meta key shows the server's error", async () => {
    await callApi(sched('jobs'), 'POST', 'X-Sched-Token', {
      Job: {
        ID: 'ui-param',
        Type: 'batch',
        ParameterizedJob: { Payload: 'optional', MetaRequired: ['release'], MetaOptional: ['note'] },
        TaskGroups: task(['-c', 'exit 0']),
      },
    });
    await page.goto(`${dev.ui.replace(/\/ui\/$/, '')}/ui/scheduler/jobs/ui-param`);
    const form = page.getByRole('form', { name: 'Dispatch job ui-param' });
    await form.waitFor();
    await page.getByText('Nothing dispatched yet.').waitFor();
    // Sent without the required key: the server's refusal is shown as it words it, and nothing is dispatched.
    await form.getByLabel('Payload').fill('hello ü');
    await form.getByRole('button', { name: 'Dispatch' }).click();
    await form.getByRole('alert').filter({ hasText: 'Dispatch did not provide required meta keys: [release]' }).waitFor();
    assert.deepEqual(await callApi(sched('jobs?prefix=ui-param%2Fdispatch-'), 'GET', 'X-Sched-Token'), []);
    await axeCheck(page, 'dispatch form with an error');
    await shoot(page, '37-sched-dispatch-error');

    await form.getByLabel('Meta release (required)').fill('v2');
    await form.getByRole('button', { name: 'Dispatch' }).click();
    const link = page.getByRole('status').getByRole('link', { name: /^ui-param\/dispatch-\d+-[0-9a-f]{8}$/ });
    await link.waitFor();
    assert.equal(await form.getByRole('alert').count(), 0);
    const childId = (await link.textContent()) ?? '';
    const child = (await callApi(sched(`job/${encodeURIComponent(childId)}`), 'GET', 'X-Sched-Token')) as {
      ParentID: string;
      Dispatched: boolean;
      Meta: Record<string, string>;
      Payload: string;
    };
    // The optional key left empty is not sent; the payload is the text's UTF-8 in base64.
    assert.deepEqual(
      [child.ParentID, child.Dispatched, child.Meta, child.Payload],
      ['ui-param', true, { release: 'v2' }, Buffer.from('hello ü').toString('base64')],
    );
    await page.getByRole('list', { name: 'Jobs dispatched from ui-param' }).getByRole('link', { name: childId }).waitFor();
    await axeCheck(page, 'dispatch form');
    await shoot(page, '38-sched-dispatched');
    await link.click();
    await page.getByRole('heading', { name: `Job ${childId}` }).waitFor();
    await page.getByRole('link', { name: 'ui-param', exact: true }).waitFor();
    assert.equal(await page.getByRole('form', { name: /^Dispatch job/ }).count(), 0);
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
