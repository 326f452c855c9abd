/**
 * A real secrets server serves the web UI with `ui = true` (issue 18; off by default): the
 * built UI at `/ui/` with its CSP, `/ui/config.json` naming only the secrets section, and
 * no proxy to services it was not told about. Without `ui`, `/ui/` is the API's 404.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { UI_CSP } from '../../src/kernel/http/index.js';
import { startTestServer } from '../helpers.js';
import { CAIRN_BIN } from '../bin.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-server-ui-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts `cairn secrets server` with `ui = true` (and `listener` keys `listenerExtra`, e.g.
 * `require_request_header = true`); resolves with its child and listener URL.
 */
function startWithUi(name = 'secrets', listenerExtra = ''): Promise<{ child: ChildProcess; url: string }> {
  const file = join(dir, `${name}.hcl`);
  writeFileSync(
    file,
    `storage "sqlite" { path = "${join(dir, `${name}.db`)}" }\nlistener "tcp" {\n  address = "127.0.0.1:0"\n  tls_disable = true\n${listenerExtra}}\nui = true\n`,
  );
  const child = spawn(process.execPath, [CAIRN_BIN, 'secrets', 'server', `-config=${file}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'secrets service listening' && entry.url) resolve({ child, url: entry.url });
      } catch {
        // not a log line
      }
    });
  });
}

describe('the secrets server and the web UI', () => {
  it('serves the UI at /ui/ with ui = true, its own section only', { timeout: 60_000 }, async (t) => {
    const { child, url } = await startWithUi();
    t.after(() => child.kill('SIGKILL'));
    const page = await fetch(`${url}/ui/secrets/kv/secret/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), UI_CSP);
    assert.match(await page.text(), /<div id="root"><\/div>/);
    assert.deepEqual(await (await fetch(`${url}/ui/config.json`)).json(), { sections: { secrets: '' } });
    assert.equal((await fetch(`${url}/ui/proxy/mesh/v1/catalog/services`)).status, 404);
    // The API is unchanged beside it (sealed, uninitialised: seal status answers without a token).
    assert.equal((await fetch(`${url}/v1/sys/seal-status`)).status, 200);
  });

  it("require_request_header: the UI's pages load without the header; the API and the UI's proxy need it", { timeout: 60_000 }, async (t) => {
    const { child, url } = await startWithUi('secrets-rrh', '  require_request_header = true\n');
    t.after(() => child.kill('SIGKILL'));
    for (const path of ['/ui', '/ui/', '/ui/secrets/kv/secret/', '/ui/config.json']) {
      const res = await fetch(`${url}${path}`, { redirect: 'manual' });
      assert.ok(res.status === 200 || res.status === 301, `${path}: ${res.status}`);
    }
    const index = await (await fetch(`${url}/ui/`)).text();
    const script = /src="\/ui\/(assets\/[^"]+\.js)"/.exec(index)?.[1];
    assert.ok(script, 'index.html names its script');
    assert.equal((await fetch(`${url}/ui/${script}`)).status, 200);
    // API paths keep the rule, the UI's proxy included (it is API traffic), and writes to /ui/ too.
    for (const [method, path] of [
      ['GET', '/v1/sys/seal-status'],
      ['GET', '/ui/proxy/mesh/v1/catalog/services'],
      ['POST', '/ui/config.json'],
    ]) {
      const res = await fetch(`${url}${path}`, { method });
      assert.equal(res.status, 412, `${method} ${path}`);
      assert.deepEqual(await res.json(), { errors: ['missing "X-Secrets-Request" header'] });
    }
    const ok = await fetch(`${url}/v1/sys/seal-status`, { headers: { 'X-Secrets-Request': 'true' } });
    assert.equal(ok.status, 200);
  });

  it("answers /ui/ with the API's 404 when the UI is off", async (t) => {
    const server = await startTestServer();
    t.after(() => server.close());
    const res = await fetch(`${server.url}/ui/`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-security-policy'), null);
  });
});
