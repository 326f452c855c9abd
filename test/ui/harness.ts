/**
 * Browser tests of the web UI (issue 18): a real `cairn dev` child process on free ports,
 * and Debian's Chromium driven by playwright-core (no browser download exists here:
 * `CHROMIUM_PATH`, default `/usr/bin/chromium`; `.ci/run` installs it). Each page records
 * its console errors and every 4xx/5xx answer the test did not list as expected (with why); {@link shoot} writes a screenshot to `test-results/ui/`;
 * {@link axeCheck} runs axe-core on the page as it is.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BUILT_UI_DIR } from '../../src/kernel/http/index.js';
import { CAIRN_BIN } from '../bin.js';
import type { JsonReply } from '../helpers.js';
import { REPO_ROOT } from '../repo-root.js';

/** Where the screenshots go (gitignored). */
export const SHOTS = join(REPO_ROOT, 'test-results', 'ui');
export const ROOT_TOKEN = 'ui-root-token';
export const GATEWAY_TOKEN = 'ui-gateway-token';

/** A running `cairn dev` and what it printed. */
export interface Dev {
  readonly child: ChildProcess;
  readonly dataDir: string;
  /** The printed web UI URL (`http://127.0.0.1:<port>/ui/`). */
  readonly ui: string;
  /** Service URLs by the label `cairn dev` prints them under. */
  readonly printed: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** Starts `cairn dev` on free ports with fixed root and gateway tokens; resolves once it printed everything. */
export async function startDev(): Promise<Dev> {
  assert.ok(existsSync(join(BUILT_UI_DIR, 'index.html')), 'the web UI is not built: run `npm run build:ui`');
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-ui-dev-'));
  const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
    (p) => `-${p}-address=127.0.0.1:0`,
  );
  const child = spawn(
    process.execPath,
    [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${ROOT_TOKEN}`, `-dev-gateway-token=${GATEWAY_TOKEN}`, ...ports],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const printed: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^ {4}([A-Z][A-Za-z ]+): +(\S+)/.exec(line);
      if (m) printed[m[1]] = m[2];
      if (line.startsWith('Press Ctrl-C')) resolve();
    });
  });
  return {
    child,
    dataDir,
    ui: printed['Web UI'],
    printed,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Launches headless Chromium (Debian's binary). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/** A page and the console errors and uncaught exceptions it had. */
export interface WatchedPage {
  readonly page: Page;
  /** Console errors, uncaught exceptions, and answers of 400 or more that were not expected (`resource: <status> <method> <path>`). */
  readonly errors: string[];
}

/**
 * An answer of 400 or more the page may get, because the test provokes it on purpose
 * (`why` says how): its status, method and a pattern of its path and query.
 */
export interface ExpectedFailure {
  readonly status: number;
  readonly method: string;
  readonly path: RegExp;
  readonly why: string;
}

/**
 * A new page in its own context (its own sessionStorage: a new tab), recording console
 * errors, uncaught exceptions, and every answer of 400 or more (API call, page or asset)
 * not in `expected`. Chromium also logs each such answer as "Failed to load resource"
 * without naming it; that line is left out for the answer recorded with its method and
 * path instead. A CSP violation is logged as an error and kept.
 */
export async function newPage(browser: Browser, expected: readonly ExpectedFailure[] = []): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of [45]\d\d/.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() < 400) return;
    const method = r.request().method();
    const url = new URL(r.url());
    const path = `${url.pathname}${url.search}`;
    if (!expected.some((x) => x.status === r.status() && x.method === method && x.path.test(path))) errors.push(`resource: ${r.status()} ${method} ${path}`);
  });
  return { page, errors };
}

/**
 * The gateway section's first screen after a password login lists the workers, an API
 * only the controller's recovery token (`auth_token`) may call: as a user it answers 401
 * and the screen shows the refusal (every test that signs in with {@link signInToGateway}).
 */
export const GATEWAY_WORKERS_AS_USER: ExpectedFailure = {
  status: 401,
  method: 'GET',
  path: /^\/ui\/proxy\/gateway\/v1\/workers$/,
  why: 'the workers screen opened as a password user: only the recovery token may list workers',
};

/** Writes a full-page screenshot `test-results/ui/<name>.png`. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (WCAG 2 A and AA rules) on the page and fails on any critical or serious
 * finding, listing each rule and the elements it found. The script is evaluated through the
 * browser's debugging protocol, which the page's CSP does not govern.
 */
export async function axeCheck(page: Page, screen: string): Promise<void> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(ctx: unknown, o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> };
      }
    ).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
  assert.deepEqual(found, [], `axe findings on ${screen}`);
}

/** Calls a service's API directly (test set-up), with the root token. */
export async function callApi(url: string, method: string, header: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { [header]: ROOT_TOKEN, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** `method /v1/<path>` on `dev`'s gateway API with the recovery token and a JSON `body`: the status, the text and its JSON. */
export async function gatewayApi(dev: Dev, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: JsonReply }> {
  const res = await fetch(`${dev.printed['Gateway api']}/v1/${path}`, {
    method,
    headers: { Authorization: `Bearer ${GATEWAY_TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

/** The `items` of the gateway list `GET /v1/<path>` (`[]` when the reply leaves them out, as the reference does for none); fails unless it answers 200. */
export async function gatewayItems(dev: Dev, path: string): Promise<JsonReply[]> {
  const r = await gatewayApi(dev, 'GET', path);
  assert.equal(r.status, 200, `GET ${path}: ${r.text}`);
  return (r.body.items as JsonReply[] | undefined) ?? [];
}

/** Logs `page` in with the root token, then to the dev gateway as `admin` / `password` on the dev password method the page offers. */
export async function signInToGateway(page: Page, ui: string): Promise<void> {
  await loginWithToken(page, ui);
  await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Gateway' }).click();
  await page.waitForFunction(() => (document.getElementById('gw-am') as HTMLInputElement | null)?.value === 'ampw_1234567890');
  await page.getByLabel('Login name').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('password');
  await page.getByRole('button', { name: 'Sign in to the gateway' }).click();
  await page.getByText('Gateway: password (admin)').waitFor();
}

/** Logs `page` in with the root token, lands on the overview, then opens the secrets engines (where the screens' tests start). */
export async function loginWithToken(page: Page, ui: string): Promise<void> {
  await page.goto(ui);
  await page.getByRole('textbox', { name: 'Token' }).fill(ROOT_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await openSecrets(page);
}

/** Opens the secrets engines screen from the header. */
export async function openSecrets(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Services' }).getByRole('link', { name: 'Secrets', exact: true }).click();
  await page.getByRole('heading', { name: 'Secrets engines' }).waitFor();
}
