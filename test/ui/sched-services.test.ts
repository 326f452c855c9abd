/**
 * A job's network and services in the web UI (issue 26 scope 6), in Chromium against a real
 * `cairn dev` whose client runs `python3 -m http.server` on a dynamic port with an HTTP check:
 * the job screen lists the allocation's ports and its service instance with its checks; the
 * allocation screen shows the port (label, address, to) and each check's status, its service
 * linking to the discovery screen of that service, which names the allocation that registered
 * the instance and links back to it. Each screen is screenshot and checked with axe-core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const JOB = `job "ui-web" {
  group "web" {
    network {
      port "http" {}
    }
    service {
      name = "ui-web"
      port = "http"
      check {
        name     = "root"
        type     = "http"
        path     = "/"
        interval = "1s"
        timeout  = "1s"
      }
    }
    task "server" {
      driver = "raw_exec"
      config {
        command = "python3"
        args    = ["-m", "http.server", "\${CAIRN_PORT_http}", "--bind", "\${CAIRN_IP_http}"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
`;

type Alloc = { ID: string; ClientStatus: string; AllocatedResources: { Shared: { Ports: { Label: string; Value: number; HostIP: string; To: number }[] } } };

describe('web UI: ports and services of a job', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  let alloc: Alloc;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser);
    page = tab.page;
    const job = await callApi(sched('jobs/parse'), 'POST', 'X-Sched-Token', { JobHCL: JOB, Canonicalize: true });
    await callApi(sched('jobs'), 'POST', 'X-Sched-Token', { Job: job });
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it("shows the job's ports and service instance, then the allocation's ports and checks", async () => {
    await page.getByRole('link', { name: 'Scheduler' }).click();
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('link', { name: 'ui-web', exact: true }).click();
    await page.getByRole('heading', { name: 'Job ui-web' }).waitFor();
    const [stub] = (await callApi(sched('job/ui-web/allocations'), 'GET', 'X-Sched-Token')) as { ID: string }[];
    alloc = (await callApi(sched(`allocation/${stub!.ID}`), 'GET', 'X-Sched-Token')) as Alloc;
    const port = alloc.AllocatedResources.Shared.Ports[0]!;
    const address = `${port.HostIP}:${port.Value}`;
    // The allocations table shows each one's ports; the services table its instance, passing once the check ran.
    await page
      .getByTestId(`ports-${alloc.ID}`)
      .filter({ hasText: `http ${address}` })
      .waitFor();
    const services = page.getByTestId('alloc-services');
    // The client's liveness check passes at once; the HTTP check once the server listens and the check ran.
    await services.getByRole('row').filter({ hasText: 'root: passing' }).waitFor({ timeout: 60_000 });
    const row = services.getByRole('row').filter({ hasText: 'ui-web' });
    assert.equal(await row.getByRole('link', { name: alloc.ID.slice(0, 8) }).count(), 1);
    assert.equal(await row.getByRole('cell', { name: address, exact: true }).count(), 1);
    assert.match((await row.textContent()) ?? '', /root: passing/);
    await axeCheck(page, 'job with services');
    await shoot(page, '36-sched-job-services');

    await row.getByRole('link', { name: alloc.ID.slice(0, 8) }).click();
    await page.getByRole('heading', { name: `Allocation ${alloc.ID.slice(0, 8)}` }).waitFor();
    const ports = page.getByTestId('alloc-ports');
    await ports.getByRole('cell', { name: address, exact: true }).waitFor();
    assert.deepEqual(await ports.getByRole('row').nth(1).getByRole('cell').allTextContents(), ['http', address, port.To > 0 ? String(port.To) : '']);
    const checks = page.getByTestId('alloc-services');
    await checks.getByText('root: passing').waitFor();
    assert.match((await checks.textContent()) ?? '', /Cairn client alive: passing/);
    await axeCheck(page, 'allocation with ports and services');
    await shoot(page, '37-sched-allocation-services');
  });

  it('links a service to the discovery screen, which names the allocation of each instance and links back', async () => {
    await page.getByTestId('alloc-services').getByRole('link', { name: 'ui-web', exact: true }).click();
    await page.getByRole('heading', { name: 'Checks of ui-web' }).waitFor();
    const table = page.getByTestId('service-checks');
    const rootRow = table.getByRole('row').filter({ hasText: 'root' });
    await rootRow.getByRole('link', { name: alloc.ID.slice(0, 8) }).waitFor();
    await rootRow.filter({ hasText: 'passing' }).waitFor({ timeout: 30_000 });
    await axeCheck(page, 'discovery service with allocations');
    await shoot(page, '38-discovery-service-allocation');
    await rootRow.getByRole('link', { name: alloc.ID.slice(0, 8) }).click();
    await page.getByRole('heading', { name: `Allocation ${alloc.ID.slice(0, 8)}` }).waitFor();
    await page.getByTestId('alloc-status').filter({ hasText: 'running' }).waitFor();
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
