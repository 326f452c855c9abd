/**
 * Shared set-up of the gateway's API and CLI tests: a dev gateway on loopback ports (the
 * `cairn dev` bootstrap: ids ending `_1234567890`, admin / password on `ampw_1234567890`),
 * the HCL of one controller with its state in a given directory, a JSON caller of the
 * controller's `/v1/…` routes, and `cairn gateway …` run in process.
 */
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { devGatewayConfig } from '../../src/services/gateway/dev-config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import type { JsonReply } from '../helpers.js';

/** Every listener of a dev gateway on a free loopback port. */
const LOOPBACK_PORTS = { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' } as const;

/** A dev gateway (controller and worker, the dev bootstrap) with recovery token `recovery`; `url` is its API listener's. */
export async function startDevGateway(recovery: string): Promise<{ gateway: Gateway; url: string }> {
  const gateway = await startGateway({ config: devGatewayConfig(LOOPBACK_PORTS, recovery), log: silentLogger(), bootstrap: { dev: {} } });
  return { gateway, url: gateway.listeners.find((l) => l.purpose === 'api')!.url };
}

/**
 * The HCL of controller `c1` with recovery token `recovery` and its state in `dataDir`, an
 * `api` listener without TLS and a `cluster` listener on free loopback ports; `extra` lines
 * go into the `controller` block.
 */
export function controllerHcl(recovery: string, dataDir: string, extra = ''): string {
  return `
controller {
  name = "c1"
  auth_token = "${recovery}"
  data_dir = "${dataDir}"
${extra}}
listener "tcp" {
  purpose = "api"
  address = "127.0.0.1:0"
  tls_disable = true
}
listener "tcp" {
  purpose = "cluster"
  address = "127.0.0.1:0"
}
`;
}

/** A reply of {@link gatewayCaller}: `body` is the parsed JSON, else the text (undefined when empty). */
export interface GatewayReply {
  status: number;
  text: string;
  body: JsonReply;
  headers: Headers;
}

/** Options of one call: `token` (null: none; absent: the caller's default), a JSON `body`, a `cookie` header. */
export interface CallOptions {
  readonly token?: string | null;
  readonly body?: unknown;
  readonly cookie?: string;
}

/**
 * A caller of `<base()>/v1/<path>` with a bearer token (`token`: the default one) that does not
 * follow redirects; `onText` sees every reply's text (to look for secrets in).
 */
export function gatewayCaller(base: () => string, o: { token?: string; onText?: (text: string) => void } = {}) {
  return async (method: string, path: string, r: CallOptions = {}): Promise<GatewayReply> => {
    const headers: Record<string, string> = {};
    const token = r.token === null ? undefined : (r.token ?? o.token);
    if (token) headers.authorization = `Bearer ${token}`;
    if (r.cookie) headers.cookie = r.cookie;
    if (r.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base().replace(/\/$/, '')}/v1/${path}`, {
      method,
      headers,
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
      redirect: 'manual',
    });
    const text = await res.text();
    o.onText?.(text);
    const body = text === '' ? undefined : res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    return { status: res.status, text, body, headers: res.headers };
  };
}

/**
 * `cairn gateway <argv>` in process with the environment `env()`: `run` gives the exit code
 * and output (also handed to `onOutput`), `json` adds `-format=json`, asserts exit 0 and
 * parses stdout.
 */
export function gatewayCli(env: () => Record<string, string>, onOutput?: (text: string) => void) {
  const run = async (argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await main(['gateway', ...argv], env(), { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    onOutput?.(stdout + stderr);
    return { code, stdout, stderr };
  };
  const json = async (argv: string[]) => {
    const r = await run([...argv, '-format=json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  return { run, json };
}
