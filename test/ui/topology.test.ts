/**
 * The scheduler's topology (issue 31 item 2) in Chromium:
 * - against a real `cairn dev` and a second, client-only agent: a job's allocation shows on
 *   the node it runs on, chosen with the keyboard it shows its job, task state and ports,
 *   and after the node is drained it shows on the other node (the screen follows the
 *   scheduler's blocking queries); its allocation screen charts its CPU and memory from
 *   the client's stats;
 * - at 200 nodes and 5,000 allocations (replies of the reference's shape served to the
 *   page by Playwright: this measures the browser's side, the server's lists are measured
 *   by the benchmarks): it renders, keeps only a screenful of node boxes in the page, and
 *   scrolls to the last node; the times are printed as test diagnostics.
 * axe-core in both themes; screenshots kept.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startCairnProcess, stopGracefully, until, type ServerProcess } from '../processes.js';
import { axeCheck, callApi, launchBrowser, loginWithToken, newPage, ROOT_TOKEN, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const JOB = {
  Job: {
    ID: 'topo',
    Name: 'topo',
    Type: 'service',
    Datacenters: ['*'],
    TaskGroups: [
      {
        Name: 'web',
        Count: 1,
        Networks: [{ DynamicPorts: [{ Label: 'http' }] }],
        Tasks: [{ Name: 'sleep', Driver: 'raw_exec', Config: { command: '/bin/sleep', args: ['600'] }, Resources: { CPU: 300, MemoryMB: 64 } }],
      },
    ],
  },
};

describe('web UI: the scheduler topology', { timeout: 300_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  let mover: ServerProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-ui-topology-'));
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;
  const nodeBox = (name: string) => page.getByTestId(`node-${name}`);
  const allocButton = (name: string) => nodeBox(name).getByRole('button', { name: /^topo\.web\[0\] of job topo/ });

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser);
    page = tab.page;
    await loginWithToken(page, dev.ui);
  });
  after(async () => {
    if (mover) await stopGracefully(mover);
    await browser?.close();
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows an allocation on its node after job run, chosen by keyboard, and on the other node after a drain', async () => {
    const [first] = (await callApi(sched('nodes'), 'GET', 'X-Sched-Token')) as { ID: string; Name: string }[];
    const home = first!.Name;
    await callApi(sched('jobs'), 'POST', 'X-Sched-Token', JOB);
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Scheduler', exact: true }).click();
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Topology' }).click();
    await page.getByRole('heading', { name: 'Topology' }).waitFor();
    await allocButton(home).waitFor({ timeout: 60_000 });
    assert.match(await nodeBox(home).innerText(), new RegExp(`${home} \\(ready, eligible\\)\\s+CPU 300 / [\\d,]+ MHz · memory 64 / [\\d,]+ MiB`));
    // Chosen with the keyboard: focus the bar, Enter.
    await allocButton(home).focus();
    await page.keyboard.press('Enter');
    const detail = page.getByTestId('topology-detail');
    await detail.getByText(`Job topo, group web, on node ${home}`).waitFor();
    await detail.getByRole('cell', { name: 'running' }).waitFor({ timeout: 60_000 });
    await detail.getByTestId('topology-ports').waitFor();
    await axeCheck(page, 'topology (light)');
    await shoot(page, '93-topology');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await axeCheck(page, 'topology (dark)');
    await shoot(page, '94-topology-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();

    // The allocation's own screen charts its CPU and memory from the client's stats, also as a table.
    await detail.getByRole('link', { name: 'Allocation details' }).click();
    await page.getByTestId('alloc-chart-cpu').locator('canvas').first().waitFor();
    await page.getByRole('button', { name: 'Show the numbers as a table' }).click();
    await until('two stats readings', 30_000, async () => ((await page.getByTestId('alloc-stats-table').locator('tbody tr').count()) >= 2 ? true : undefined));
    const [, memory] = (await page.getByTestId('alloc-stats-table').locator('tbody tr').first().locator('td').allInnerTexts()).slice(1);
    assert.ok(Number(memory) > 0, `the task's RSS in MiB: ${memory}`);
    await axeCheck(page, 'allocation with its resource charts (light)');
    await shoot(page, '98-allocation-resource-use');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await axeCheck(page, 'allocation with its resource charts (dark)');
    await shoot(page, '99-allocation-resource-use-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Topology' }).click();

    // A second client joins; the dev node is drained: the allocation moves, and the screen shows it there.
    mkdirSync(join(dir, 'mover'), { recursive: true });
    const hcl = [
      `data_dir = "${dir}/mover"`,
      'name = "mover"',
      'ports { http = 0 }',
      `client {\n  enabled = true\n  servers = ["${new URL(dev.printed['Scheduler']!).host}"]\n  token = "${ROOT_TOKEN}"\n  network_interface = "lo"\n  min_dynamic_port = 25400\n  max_dynamic_port = 25499\n}`,
      'plugin "raw_exec" {\n  config { enabled = true }\n}',
    ].join('\n');
    writeFileSync(join(dir, 'agent.hcl'), hcl);
    mover = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, 'scheduler client-only agent listening');
    const nodes = await until('two ready nodes', 60_000, async () => {
      const list = (await callApi(sched('nodes'), 'GET', 'X-Sched-Token')) as { ID: string; Name: string; Status: string }[];
      return list.filter((n) => n.Status === 'ready').length === 2 ? list : undefined;
    });
    await nodeBox('mover').waitFor();
    const devNode = nodes.find((n) => n.Name === home)!;
    await callApi(sched(`node/${devNode.ID}/drain`), 'POST', 'X-Sched-Token', { DrainSpec: { Deadline: 0, IgnoreSystemJobs: false } });
    await allocButton('mover').waitFor({ timeout: 120_000 });
    await until('the old allocation gone from the drained node', 60_000, async () => ((await allocButton(home).count()) === 0 ? true : undefined));
    assert.match(await nodeBox(home).innerText(), new RegExp(`${home} \\(ready, ineligible(, draining)?\\)`));
    await shoot(page, '95-topology-after-drain');
    assert.deepEqual(tab.errors, []);
  });

  it('keeps 200 nodes and 5,000 allocations readable: renders, a screenful of boxes in the page, scrolls to the last', async (t) => {
    const { page: big, errors } = await newPage(browser);
    const nodes = Array.from({ length: 200 }, (_, i) => ({
      ID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      Name: `node-${String(i).padStart(3, '0')}`,
      Status: i % 50 === 7 ? 'down' : 'ready',
      SchedulingEligibility: 'eligible',
      Drain: false,
      NodeResources: { Cpu: { CpuShares: i % 2 ? 8000 : 4000 }, Memory: { MemoryMB: i % 2 ? 16384 : 8192 } },
      ReservedResources: { Cpu: { CpuShares: 0 }, Memory: { MemoryMB: 0 } },
    }));
    const allocs = Array.from({ length: 5000 }, (_, i) => ({
      ID: `a0000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      Name: `job-${i % 40}.g[${i}]`,
      Namespace: 'default',
      NodeID: nodes[i % 200]!.ID,
      JobID: `job-${i % 40}`,
      TaskGroup: 'g',
      DesiredStatus: 'run',
      ClientStatus: 'running',
      AllocatedResources: { Tasks: { t: { Cpu: { CpuShares: 100 }, Memory: { MemoryMB: 128 } } } },
    }));
    // Served to the page with the scheduler's index header, as the blocking reads expect.
    await big.route(/\/ui\/proxy\/sched\/v1\/(nodes|allocations)\?/, async (route) => {
      const url = new URL(route.request().url());
      const index = url.searchParams.get('index') ?? '0';
      // A blocking read after the first: nothing changes, it is left waiting (the page closes first).
      if (index !== '0') return;
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'application/json', 'x-sched-index': '7' },
        body: JSON.stringify(url.pathname.endsWith('/nodes') ? nodes : allocs),
      });
    });
    await loginWithToken(big, dev.ui);
    const started = Date.now();
    await big.goto(new URL('scheduler/topology', dev.ui).href);
    await big.getByTestId('topology-summary').getByText('200 nodes, 5000 running allocations').waitFor();
    await big.getByTestId('node-node-000').waitFor();
    const renderMs = Date.now() - started;
    const boxes = await big.locator('.node-box').count();
    assert.ok(boxes > 0 && boxes <= 30, `${boxes} node boxes in the page: a screenful, not 200`);
    const scrollStart = Date.now();
    await big.getByTestId('topology').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await big.getByTestId('node-node-199').waitFor();
    const scrollMs = Date.now() - scrollStart;
    assert.equal(await big.getByTestId('node-node-199').getByRole('button').count(), 25, "the last node's 25 allocations");
    t.diagnostic(
      `200 nodes, 5,000 allocations: rendered in ${renderMs} ms (navigation to the first box), ${boxes} boxes in the page, scrolled to the last node in ${scrollMs} ms`,
    );
    await shoot(big, '96-topology-200-nodes');
    await axeCheck(big, 'topology at 200 nodes');
    assert.deepEqual(errors, []);
    await big.context().close();
  });
});
