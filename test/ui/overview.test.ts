/**
 * The overview after sign-in (issue 31 item 1) in Chromium against a real `cairn dev`:
 * one card per service with its state in words; the discovery card turns red (its word
 * "Failing", the failing check listed) within 2 s of a check failing and back within 2 s of
 * it passing, through the blocking queries; each card links to its screen; the traffic
 * charts get points while load runs, and show the same numbers as a table; axe-core in both
 * themes, screenshots kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { until } from '../processes.js';
import { axeCheck, callApi, GATEWAY_TOKEN, launchBrowser, newPage, ROOT_TOKEN, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

const SERVICE = 'overview-web';
const CHECK = `service:${SERVICE}`;

describe('web UI: the overview', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const mesh = (path: string) => `${dev.printed['Discovery']}/v1/${path}`;
  const card = (id: string) => page.getByTestId(`card-${id}`);
  /** Waits (at most `ms`) until card `id` shows `state`. */
  const cardState = (id: string, state: string, ms: number) =>
    page.waitForFunction(([i, s]) => document.querySelector(`[data-testid="card-${i}"]`)?.getAttribute('data-state') === s, [id, state] as const, {
      timeout: ms,
    });

  before(async () => {
    [dev, browser] = await Promise.all([startDev(), launchBrowser()]);
    tab = await newPage(browser);
    page = tab.page;
    await callApi(mesh('agent/service/register'), 'PUT', 'X-Mesh-Token', { Name: SERVICE, ID: SERVICE, Port: 8080, Check: { TTL: '10m', Status: 'passing' } });
  });
  after(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('lands on the overview after sign-in, one card per service, each in words', async () => {
    await page.goto(dev.ui);
    await page.getByRole('textbox', { name: 'Token' }).fill(ROOT_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/ui/overview');
    await cardState('secrets', 'ok', 10_000);
    assert.match(await card('secrets').innerText(), /Healthy\s+Unsealed/);
    await cardState('scheduler', 'ok', 20_000);
    assert.match(await card('scheduler').innerText(), /1 of 1 nodes ready; jobs \d+ running, \d+ pending, 0 failed; 0 blocked evaluations; leader /);
    await cardState('discovery', 'ok', 20_000);
    assert.match(await card('discovery').innerText(), /\d+ services: \d+ passing, 0 warning, 0 critical; leader /);
    assert.match(await card('gateway').innerText(), /Sign in to the gateway to see its workers and sessions/);
    // The cards wait in blocking queries, even on the scheduler's empty job and evaluation tables.
    const reads: string[] = [];
    const count = (r: { url(): string }) => reads.push(new URL(r.url()).pathname);
    page.on('request', count);
    await new Promise((r) => setTimeout(r, 3000));
    page.off('request', count);
    assert.ok(reads.filter((p) => p.includes('/v1/jobs') || p.includes('/v1/evaluations')).length <= 4, `no polling loop: ${reads.join(' ')}`);
    await axeCheck(page, 'overview (light)');
    await shoot(page, '90-overview');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await axeCheck(page, 'overview (dark)');
    await shoot(page, '91-overview-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  });

  it('turns the discovery card red within 2 s of a check failing, naming it, and back when it passes', async () => {
    await cardState('discovery', 'ok', 10_000);
    await callApi(mesh(`agent/check/fail/${CHECK}?note=down`), 'PUT', 'X-Mesh-Token');
    await cardState('discovery', 'bad', 2_000);
    assert.match(await card('discovery').innerText(), /Failing\s+\d+ services: \d+ passing, 0 warning, 1 critical/);
    await card('discovery').getByRole('list', { name: 'Failing checks' }).getByText(`critical Service '${SERVICE}' check on`).waitFor();
    await shoot(page, '92-overview-check-failing');
    await callApi(mesh(`agent/check/pass/${CHECK}`), 'PUT', 'X-Mesh-Token');
    await cardState('discovery', 'ok', 2_000);
    assert.equal(await card('discovery').getByRole('list', { name: 'Failing checks' }).count(), 0);
  });

  it("charts each service's requests per second and p99 latency while load runs, the numbers also as a table", async () => {
    await page.getByTestId('chart-req/s').locator('canvas').first().waitFor();
    // Load on the discovery service and the gateway (whose metrics are on its ops listener)
    // for 15 s (three samples at least), two requests in flight on each.
    const end = Date.now() + 15_000;
    const gateway = `${dev.printed['Gateway api'].replace(/\/$/, '')}/v1/scopes`;
    const calls: Array<[string, Record<string, string>]> = [
      [mesh('kv/overview-load'), { 'X-Mesh-Token': ROOT_TOKEN }],
      [gateway, { Authorization: `Bearer ${GATEWAY_TOKEN}` }],
    ];
    const load = Promise.all(
      [...calls, ...calls].map(async ([url, headers]) => {
        while (Date.now() < end) await fetch(url, { headers }).then((r) => r.text());
      }),
    );
    await page.getByRole('button', { name: 'Show the numbers as a table' }).click();
    /** The newest sample's figures of service `label` in the table. */
    const newest = (label: string) =>
      page.evaluate((l) => {
        const table = document.querySelector('[data-testid="traffic-table"]');
        const heads = [...(table?.querySelectorAll('thead th') ?? [])].map((th) => th.textContent ?? '');
        const col = heads.findIndex((h) => h.startsWith(l));
        const first = table?.querySelector('tbody tr');
        const cell = first?.querySelectorAll('td')[col]?.textContent ?? '';
        return { rps: Number(cell.split(',')[0]), p99: cell.split(',')[1]?.trim() ?? '' };
      }, label);
    for (const label of ['Discovery', 'Gateway']) {
      const seen = await until(`the ${label} column busy in the newest sample`, 30_000, async () => {
        const f = await newest(label);
        return f.rps > 5 ? f : undefined;
      });
      assert.match(seen.p99, /^\d+\.\d$/, `${label}: a p99 in ms: ${seen.p99}`);
    }
    await load;
    assert.ok((await page.getByTestId('traffic-table').locator('tbody tr').count()) >= 2);
    await axeCheck(page, 'overview with the traffic table');
    await shoot(page, '97-overview-traffic');
    // The axes are drawn in the theme's text colour (styles.css --text), in both themes.
    const textPixels = (rgb: [number, number, number]) =>
      page
        .getByTestId('chart-req/s')
        .locator('canvas')
        .first()
        .evaluate((c: HTMLCanvasElement, [r, g, b]) => {
          const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
          let n = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (data[i + 3]! > 200 && Math.abs(data[i]! - r) + Math.abs(data[i + 1]! - g) + Math.abs(data[i + 2]! - b) < 24) n++;
          }
          return n;
        }, rgb);
    const axisText = (theme: string, rgb: [number, number, number]) =>
      until(`axis labels in the ${theme} theme's text colour`, 5_000, async () => ((await textPixels(rgb)) > 100 ? true : undefined));
    await axisText('light', [0x1b, 0x1f, 0x24]);
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await axisText('dark', [0xe8, 0xea, 0xed]);
    await shoot(page, '97-overview-traffic-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await axisText('light', [0x1b, 0x1f, 0x24]);
  });

  it('links each card to the screen that explains it', async () => {
    await card('discovery').getByRole('link', { name: 'Services' }).click();
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Overview' }).click();
    await card('scheduler').getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Overview' }).click();
    await card('secrets').getByRole('link', { name: 'Seal and HA status' }).click();
    await page.getByRole('heading', { name: 'High availability' }).waitFor();
    // The gateway's card, once the gateway has a token: its workers and active sessions.
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Overview' }).click();
    await card('gateway').getByRole('link', { name: 'Sign in to the gateway' }).click();
    await page.getByLabel('Gateway API token').fill(GATEWAY_TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('heading', { name: 'Workers' }).waitFor();
    await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Overview' }).click();
    await cardState('gateway', 'ok', 15_000);
    assert.match(await card('gateway').innerText(), /Healthy\s+1 workers; 0 active sessions\./);
    assert.deepEqual(tab.errors, []);
  });
});
