/**
 * The `oidc` and `jwt` handlers of `cairn login` (reference CLI: vault-plugin-auth-jwt's
 * `CLIHandler`). `-method=oidc [role=R] [mount=M] [listenaddress=localhost] [port=8250]
 * [callbackhost=…] [callbackport=…] [skip_browser=true]` opens a loopback listener,
 * asks the server for an auth URL whose redirect URI is
 * `http://<callbackhost>:<callbackport>/oidc/callback`, prints it (the reference's
 * "Complete the login via your OIDC provider…" text on stderr; Cairn never launches a
 * browser itself), waits for the provider's redirect and exchanges its state and code at
 * `auth/<mount>/oidc/callback`. `-method=jwt role=R jwt=…` posts the JWT to `login`.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecretResponse, SecretsClient } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import type { CommandContext } from '../context.js';

/** What the browser sees after the redirect (the reference shows a "signed in" page). */
const DONE_PAGE = '<!doctype html><html><body><p>Signed in via your OIDC provider. You can close this window and return to the CLI.</p></body></html>';

/** How long the listener waits for the provider's redirect (the reference waits without limit; Cairn stops after 5 minutes). */
const WAIT_MS = 5 * 60_000;

/** `-method=jwt`: `role` (optional: the mount's default role) and `jwt` (required; `jwt=@file` reads a file). */
export async function viaJwt(client: SecretsClient, values: Record<string, string>, mount: string): Promise<SecretResponse<unknown>> {
  if (!values.jwt) throw new UsageError("'jwt' must be supplied (role=… jwt=…)");
  return client.auth.jwt(values.role, values.jwt.trim(), mount);
}

/**
 * `-method=oidc`: runs the browser flow described in the module comment and returns the
 * login envelope. Errors: UsageError for a bad port; the server's 400 for a refused
 * redirect URI or state; an Error when the provider redirects with `error=…` or nothing
 * arrives within {@link WAIT_MS}.
 */
export async function viaOidc(ctx: CommandContext, client: SecretsClient, values: Record<string, string>, mount: string): Promise<SecretResponse<unknown>> {
  const listenAddress = values.listenaddress || 'localhost';
  const port = values.port === undefined ? 8250 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`port: not a port number: ${values.port}`);
  const skipBrowser = values.skip_browser === 'true' || values.skip_browser === '1';
  const clientNonce = randomBytes(20).toString('hex');

  let deliver!: (params: URLSearchParams) => void;
  const arrived = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    if (url.pathname !== '/oidc/callback') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DONE_PAGE);
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, listenAddress, resolve);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const callbackPort = values.callbackport || String((server.address() as AddressInfo).port);
    const redirectUri = `http://${values.callbackhost || listenAddress}:${callbackPort}/oidc/callback`;
    const authUrl = await client.auth.oidcAuthUrl({ role: values.role, redirectUri, clientNonce }, mount);
    ctx.err(
      skipBrowser
        ? `Complete the login via your OIDC provider. Open the following link in your browser:\n\n    ${authUrl}\n\n`
        : `Complete the login via your OIDC provider. Launching browser to:\n\n    ${authUrl}\n\n`,
    );
    ctx.err('Waiting for OIDC authentication to complete...');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timed out waiting for the OIDC provider's redirect")), WAIT_MS);
    });
    const params = await Promise.race([arrived, timeout]);
    const error = params.get('error');
    if (error) throw new Error(`the OIDC provider refused the login: ${params.get('error_description') || error}`);
    return await client.auth.oidcCallback({ state: params.get('state') ?? '', code: params.get('code') ?? '', clientNonce }, mount);
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
