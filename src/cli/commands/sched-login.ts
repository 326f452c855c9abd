/**
 * `cairn sched login [-method=NAME] [-type=OIDC|JWT] [-login-token=JWT | -login-token-file=FILE]
 * [-oidc-callback-addr=localhost:4649]` (reference `nomad login`):
 *
 * - Without `-method`, the auth method whose `Default` is true (spec 002 "Default"); without
 *   `-type`, the method's type from `GET /v1/acl/auth-methods` (no token needed).
 * - JWT: exchanges the `-login-token` (or the contents of `-login-token-file`) for a token.
 * - OIDC: listens on `-oidc-callback-addr` (loopback; `localhost` binds 127.0.0.1) for the
 *   browser's return to `http://<addr>/oidc/callback`, asks the service for the provider
 *   URL with that redirect URI and a fresh client nonce, prints the URL (on stderr) for the
 *   user to open, waits for the callback (or SIGINT), completes the login with its `state`
 *   and `code`, tells the browser the outcome, and stops listening.
 *
 * Prints `Successfully logged in via <type> and auth method "<name>"` and the token
 * (accessor, secret, expiry, …), or with `-json` only the token as JSON. The token is not
 * stored anywhere: set `SCHED_TOKEN` to its Secret ID.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import type { SchedAclToken, SchedClient } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import type { App } from '../context.js';
import { readFlagFile } from '../client-command.js';
import { interruption, optString, schedError, schedLeaf, show, type SchedCtx } from './sched-common.js';
import { tokenBlock } from './sched-format.js';

/** Where the browser is sent back by default (the reference's `-oidc-callback-addr`). */
const DEFAULT_OIDC_CALLBACK_ADDR = 'localhost:4649';

/** Path of the callback on the local listener. */
const OIDC_CALLBACK_PATH = '/oidc/callback';

/** `host:port` split for listening. @throws UsageError for anything else. */
export function parseCallbackAddr(addr: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError(`invalid -oidc-callback-addr "${addr}": use host:port, e.g. ${DEFAULT_OIDC_CALLBACK_ADDR}`);
  return { host: m[1], port };
}

/** The method's name and type: from the flags, else from the method list (`Default` when unnamed). */
async function chooseMethod(ctx: SchedCtx): Promise<{ name: string; type: string }> {
  let name = optString(ctx.opts, 'method');
  let type = optString(ctx.opts, 'type')?.toUpperCase();
  if (name === undefined || type === undefined) {
    const { data: methods } = await ctx.client.listAuthMethods();
    if (name === undefined) {
      const chosen = methods.find((m) => m.Default);
      if (!chosen) throw new UsageError('no default auth method: name one with -method=NAME (see "cairn sched acl auth-method list")');
      name = chosen.Name;
    }
    if (type === undefined) {
      const found = methods.find((m) => m.Name === name);
      if (!found) throw new Error(`auth method "${name}" not found`);
      type = found.Type.toUpperCase();
    }
  }
  if (type !== 'JWT' && type !== 'OIDC') throw new UsageError(`unsupported auth method type "${type}": the CLI logs in with JWT and OIDC methods`);
  return { name, type };
}

/** The JWT given by `-login-token` or `-login-token-file`. @throws UsageError unless exactly one gives a non-empty token. */
function loginToken(ctx: SchedCtx): string {
  const inline = optString(ctx.opts, 'loginToken');
  const file = optString(ctx.opts, 'loginTokenFile');
  if ((inline === undefined) === (file === undefined)) throw new UsageError('a JWT login needs exactly one of -login-token=JWT or -login-token-file=FILE');
  const token = (inline ?? readFlagFile('login-token-file', file!)).trim();
  if (token === '') throw new UsageError(file !== undefined ? `-login-token-file: "${file}" is empty` : '-login-token is empty');
  return token;
}

/** What the browser's return to the callback carried. */
interface Callback {
  readonly state: string;
  readonly code: string;
  /** Answers the browser (the page it shows) and lets the listener stop. */
  reply(ok: boolean, text: string): void;
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
  const escaped = text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res.end(`<!doctype html><html><head><title>Cairn login</title></head><body><p>${escaped}</p></body></html>\n`);
}

/** Listens for the callback; resolves with the first one that carries `state` and `code`, rejects on a provider error. */
function awaitCallback(server: Server): Promise<Callback> {
  return new Promise((resolve, reject) => {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://callback');
      if (url.pathname !== OIDC_CALLBACK_PATH) return page(res, 404, 'Not found.');
      const q = url.searchParams;
      const error = q.get('error');
      if (error) {
        const why = `the provider refused the login: ${error}${q.get('error_description') ? `: ${q.get('error_description')}` : ''}`;
        page(res, 400, `Login failed: ${why}`);
        return reject(new Error(why));
      }
      const state = q.get('state');
      const code = q.get('code');
      if (!state || !code) return page(res, 400, 'The callback lacks its state or code.');
      resolve({ state, code, reply: (ok, text) => page(res, ok ? 200 : 400, text) });
    });
  });
}

async function listenOn(addr: string): Promise<Server> {
  const { host, port } = parseCallbackAddr(addr);
  const bind = host === 'localhost' ? '127.0.0.1' : host.replace(/^\[|\]$/g, '');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen for the OIDC callback on ${addr}: ${err.message}`)));
    server.listen(port, bind, () => resolve());
  });
  return server;
}

function stopListening(server: Server): void {
  server.close();
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 1000).unref();
}

async function oidcLogin(ctx: SchedCtx, client: SchedClient, method: string): Promise<SchedAclToken> {
  const addr = optString(ctx.opts, 'oidcCallbackAddr') ?? DEFAULT_OIDC_CALLBACK_ADDR;
  const server = await listenOn(addr);
  const stop = interruption(ctx.io);
  try {
    const { host } = parseCallbackAddr(addr);
    const redirect = `http://${host}:${(server.address() as AddressInfo).port}${OIDC_CALLBACK_PATH}`;
    const nonce = randomUUID();
    const callback = awaitCallback(server);
    const { AuthURL } = await client.oidcAuthUrl({ AuthMethodName: method, RedirectURI: redirect, ClientNonce: nonce });
    ctx.io.stderr(
      `Complete the login via your OIDC provider. Open this URL in your browser:\n\n    ${AuthURL}\n\nWaiting for the provider to send the browser back to ${redirect} …\n`,
    );
    const interrupted = new Promise<never>((_, reject) => {
      const fail = () => reject(new Error('login interrupted before the provider called back'));
      if (stop.signal.aborted) fail();
      else stop.signal.addEventListener('abort', fail, { once: true });
    });
    // Whichever loses the race must not become an unhandled rejection.
    callback.catch(() => {});
    interrupted.catch(() => {});
    const cb = await Promise.race([callback, interrupted]);
    try {
      const token = await client.oidcCompleteAuth({ AuthMethodName: method, ClientNonce: nonce, State: cb.state, Code: cb.code, RedirectURI: redirect });
      cb.reply(true, 'Signed in to Cairn via your OIDC provider. You can close this window and return to the terminal.');
      return token;
    } catch (err) {
      const reported = schedError(err);
      cb.reply(false, `Login failed: ${(reported as Error).message}`);
      throw err;
    }
  } finally {
    stop.dispose();
    stopListening(server);
  }
}

async function login(ctx: SchedCtx): Promise<number> {
  const { name, type } = await chooseMethod(ctx);
  if (type === 'OIDC' && (ctx.opts.loginToken !== undefined || ctx.opts.loginTokenFile !== undefined)) {
    throw new UsageError(`-login-token and -login-token-file are for JWT methods; "${name}" is an OIDC method (log in through the browser)`);
  }
  const token = type === 'JWT' ? await ctx.client.login({ AuthMethodName: name, LoginToken: loginToken(ctx) }) : await oidcLogin(ctx, ctx.client, name);
  show(ctx, token, () => `Successfully logged in via ${type} and auth method "${name}"\n\n${tokenBlock(token)}`);
  return 0;
}

/** Adds `sched login` to the `sched` group. */
export function addSchedLoginCommand(app: App, sched: Command): void {
  schedLeaf(
    app,
    sched
      .command('login')
      .description('log in to the scheduler with an auth method (JWT or OIDC) and print the new token')
      .option('--method <name>', 'auth method to log in with (default: the one marked Default)')
      .option('--type <type>', "OIDC or JWT (default: the method's type)")
      .option('--login-token <jwt>', 'JWT methods: the token to exchange')
      .option('--login-token-file <file>', 'JWT methods: file holding the token to exchange')
      .option('--oidc-callback-addr <host:port>', `OIDC methods: where to listen for the browser's return (default ${DEFAULT_OIDC_CALLBACK_ADDR})`),
    login,
  );
}
