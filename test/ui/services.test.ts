/**
 * The web UI's discovery, scheduler and gateway screens in Chromium against a real
 * `cairn dev` (issue 18), all reached from the secrets listener's origin through its dev
 * proxy: a service turns critical live (blocking queries), a scheduler event appears live,
 * filtered by topic and held while paused, and a gateway session is cancelled. Every screen
 * is screenshot and checked with axe-core; no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeCheck, callApi, GATEWAY_TOKEN, launchBrowser, loginWithToken, newPage, shoot, startDev, type Dev, type WatchedPage } from './harness.js';

describe('web UI: discovery, scheduler and gateway', { timeout: 180_000 }, () => {
  let dev: Dev;
  let browser: Browser;
  let tab: WatchedPage;
  let page: Page;
  const mesh = (path: string) => `${dev.printed['Discovery']}/v1/${path}`;
  const sched = (path: string) => `${dev.printed['Scheduler']}/v1/${path}`;

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

  it('shows a discovery service turn critical live', async () => {
    await callApi(mesh('agent/service/register'), 'PUT', 'X-Mesh-Token', {
      Name: 'web',
      ID: 'web-1',
      Port: 8080,
      Tags: ['v1'],
      Check: { CheckID: 'web-ttl', Name: 'web alive', TTL: '10m' },
    });
    await callApi(mesh('agent/check/pass/web-ttl?note=all%20good'), 'PUT', 'X-Mesh-Token');
    await page.getByRole('link', { name: 'Discovery' }).click();
    await page.getByTestId('health-web').filter({ hasText: 'passing' }).waitFor();
    await page.getByRole('button', { name: 'web' }).click();
    await page.getByText('all good').waitFor();
    await axeCheck(page, 'discovery services');
    await shoot(page, '20-discovery-passing');
    // No reload: the screen's blocking query returns as the check changes.
    await callApi(mesh('agent/check/fail/web-ttl?note=connection%20refused'), 'PUT', 'X-Mesh-Token');
    await page.getByTestId('health-web').filter({ hasText: 'critical' }).waitFor();
    await page.getByText('connection refused').waitFor();
    await shoot(page, '21-discovery-critical');
    await page.getByRole('navigation', { name: 'Discovery' }).getByRole('link', { name: 'Nodes' }).click();
    await page.getByTestId('mesh-nodes').getByRole('cell', { name: 'dev', exact: true }).waitFor();
    await axeCheck(page, 'discovery nodes');
    await shoot(page, '26-discovery-nodes');
  });

  it('shows a scheduler event live, filtered by topic, held while paused', async () => {
    await page.getByRole('link', { name: 'Scheduler' }).click();
    await page.getByLabel('Topic filter').fill('ACLPolicy');
    // The stream is open once the server has sent its headers: events after that reach it.
    const opened = page.waitForResponse((r) => r.url().includes('/v1/event/stream?topic=ACLPolicy'));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Streaming topic ACLPolicy').waitFor();
    await opened;
    await callApi(sched('acl/policy/ui-one'), 'PUT', 'X-Sched-Token', { Name: 'ui-one', Rules: 'namespace "default" { policy = "read" }' });
    const events = page.getByTestId('events');
    await events.getByText('ui-one').waitFor();
    assert.equal(await events.locator('tbody tr').first().locator('td').nth(1).textContent(), 'ACLPolicy');
    await axeCheck(page, 'event stream');
    await shoot(page, '22-sched-events');

    await page.getByRole('button', { name: 'Pause' }).click();
    await callApi(sched('acl/policy/ui-two'), 'PUT', 'X-Sched-Token', { Name: 'ui-two', Rules: 'namespace "default" { policy = "read" }' });
    await page.getByRole('button', { name: 'Resume (1 waiting)' }).waitFor();
    assert.equal(await events.getByText('ui-two').count(), 0);
    await shoot(page, '23-sched-events-paused');
    await page.getByRole('button', { name: /^Resume/ }).click();
    await events.getByText('ui-two').waitFor();

    const nodes = (await callApi(sched('nodes'), 'GET', 'X-Sched-Token')) as Array<{ Name: string }>;
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Nodes' }).click();
    await page.getByTestId('sched-nodes').getByRole('cell', { name: nodes[0].Name, exact: true }).waitFor();
    await axeCheck(page, 'scheduler nodes');
    await shoot(page, '27-sched-nodes');
    await page.getByRole('navigation', { name: 'Scheduler' }).getByRole('link', { name: 'Allocations' }).click();
    await page.getByRole('heading', { name: 'Allocations' }).waitFor();
    await page.getByText('No allocations.').waitFor();
    await axeCheck(page, 'scheduler allocations');
  });

  it('cancels a gateway session', async () => {
    // cairn dev's target (the secrets service through the worker), authorised with the recovery token.
    const target = 'ttcp_1234567890';
    const gw = dev.printed['Gateway api'];
    let session: { session_id: string } | undefined;
    // The worker reports READY shortly after start; until then no session is offered.
    for (let i = 0; !session && i < 100; i++) {
      const res = await fetch(`${gw}/v1/targets/${target}:authorize-session`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${GATEWAY_TOKEN}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      if (res.ok) session = (await res.json()) as { session_id: string };
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(session, 'no session authorised');
    await page.getByRole('link', { name: 'Gateway' }).click();
    await axeCheck(page, 'gateway token');
    await page.getByLabel('Gateway API token').fill(GATEWAY_TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByTestId(`status-${session.session_id}`).filter({ hasText: 'pending' }).waitFor();
    await axeCheck(page, 'gateway sessions');
    await shoot(page, '24-gateway-sessions');
    await page.getByRole('button', { name: `Cancel session ${session.session_id}` }).click();
    await page
      .getByTestId(`status-${session.session_id}`)
      .filter({ hasText: /canceling|terminated/ })
      .waitFor();
    const read = (await (await fetch(`${gw}/v1/sessions/${session.session_id}`, { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as {
      status: string;
    };
    assert.match(read.status, /canceling|terminated/);
    await shoot(page, '25-gateway-cancelled');
  });

  it('logged no console error on any screen', () => {
    assert.deepEqual(tab.errors, []);
  });
});
