/**
 * Access gateway client commands, through the SDK (src/sdk/gateway.ts):
 *
 * - `cairn gateway targets authorize-session -id=TARGET_ID [-host-id=…]` prints the
 *   session authorisation (the reference's `boundary targets authorize-session`);
 * - `cairn gateway sessions list|read|cancel [-id=…] [-scope-id=…] [-recursive]`;
 * - `cairn gateway workers` (recovery token);
 * - `cairn gateway connect -target-id=… [-host-id] [-listen-addr=127.0.0.1] [-listen-port=0]`:
 *   authorises a session, listens locally and carries every local connection through a
 *   worker to the target until the session ends or Ctrl-C, which cancels it (the
 *   reference's `boundary connect`).
 *
 * Every command reads `-addr` (else `GATEWAY_ADDR`, default `http://127.0.0.1:9200`) and
 * `-token` (else `GATEWAY_TOKEN`): an auth token (`cairn gateway authenticate`) or the
 * controller's recovery token. Exit codes: 0 ok, 1 the
 * controller or a worker refused or could not be reached, 2 usage error.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Command } from 'commander';
import { connectSession, GatewayApiError, GatewayClient, type AuthorizedSession, type GatewaySession } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, commandGroup } from '../context.js';
import { toJson } from '../format.js';
import { interruption } from '../shutdown.js';

/** Default controller api address (reference/gateway.md §1). */
const DEFAULT_GATEWAY_ADDRESS = 'http://127.0.0.1:9200';

export interface CommonOpts {
  addr?: string;
  token?: string;
  format?: string;
}

export type Action<O> = (app: App, client: GatewayClient, opts: O & CommonOpts, args: string[]) => Promise<number>;

/** Wraps an action: builds the client, turns SDK errors into one-line CLI errors, closes the client. */
export function run<O>(app: App, action: Action<O>) {
  return async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as O & CommonOpts;
    if (opts.format !== undefined && opts.format !== 'table' && opts.format !== 'json') {
      throw new UsageError(`invalid -format "${opts.format}": use table or json`);
    }
    const address = opts.addr ?? app.env.GATEWAY_ADDR ?? DEFAULT_GATEWAY_ADDRESS;
    if (!/^https?:\/\/[^/]+\/?$/.test(address)) throw new UsageError(`invalid gateway address "${address}": expected http(s)://host:port`);
    const client = new GatewayClient({ address, token: opts.token ?? app.env.GATEWAY_TOKEN });
    try {
      app.exitCode = await action(app, client, opts, command.args);
    } catch (err) {
      if (err instanceof GatewayApiError) throw new Error(`${err.message} (HTTP ${err.status})`);
      throw err;
    } finally {
      await client.close();
    }
  };
}

/** Adds `-addr`, `-token` and `-format` to `cmd`. */
export function common(cmd: Command): Command {
  return cmd
    .option('--addr <url>', `controller api address (env GATEWAY_ADDR, default ${DEFAULT_GATEWAY_ADDRESS})`)
    .option('--token <token>', 'controller api token (env GATEWAY_TOKEN)')
    .option('--format <format>', 'output format: table or json');
}

/** Prints `value` as JSON with `-format=json`, else the text `table()` makes. */
export const print = (app: App, opts: CommonOpts, value: unknown, table: () => string) =>
  app.io.stdout(opts.format === 'json' ? `${toJson(value)}\n` : table());

function sessionRows(sessions: readonly GatewaySession[]): string {
  if (sessions.length === 0) return 'No sessions found.\n';
  const rows = [['ID', 'STATUS', 'TARGET', 'USER', 'ENDPOINT', 'CONNECTIONS', 'EXPIRATION']];
  for (const s of sessions) {
    rows.push([s.id, s.status, s.target_id, s.user_id, s.endpoint, String(s.connections.filter((c) => c.status === 'connected').length), s.expiration_time]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

function sessionText(s: GatewaySession): string {
  const lines = [
    'Session information:',
    `  ID:                  ${s.id}`,
    `  Status:              ${s.status}`,
    `  Target ID:           ${s.target_id}`,
    `  User ID:             ${s.user_id}`,
    `  Scope ID:            ${s.scope_id}`,
    `  Endpoint:            ${s.endpoint}`,
    `  Created Time:        ${s.created_time}`,
    `  Expiration Time:     ${s.expiration_time}`,
    `  Connection Limit:    ${s.connection_limit}`,
    `  Version:             ${s.version}`,
  ];
  if (s.termination_reason) lines.push(`  Termination Reason:  ${s.termination_reason}`);
  for (const c of s.connections)
    lines.push(
      `  Connection ${c.connection_id}: ${c.status} via ${c.worker_name} from ${c.client_tcp_address}, ${c.bytes_up} bytes up, ${c.bytes_down} down${c.closed_reason ? ` (${c.closed_reason})` : ''}`,
    );
  return lines.join('\n') + '\n';
}

function credentialLines(s: AuthorizedSession): string[] {
  if (s.credentials.length === 0) return [];
  const lines = ['', 'Credentials:'];
  for (const c of s.credentials) {
    const src = c.credential_source;
    lines.push(`  Credential Source ID:   ${src.id}`);
    if (src.name) lines.push(`  Credential Source Name: ${src.name}`);
    lines.push(`  Credential Store ID:    ${src.credential_store_id}`, `  Credential Source Type: ${src.type}`);
    if (src.credential_type) lines.push(`  Credential Type:        ${src.credential_type}`);
    lines.push(`  Secret:                 ${JSON.stringify(c.credential ?? c.secret.decoded)}`, '');
  }
  return lines;
}

interface AuthorizeOpts {
  id?: string;
  targetId?: string;
  hostId?: string;
}

const authorize: Action<AuthorizeOpts> = async (app, client, opts) => {
  if (!opts.id) throw new UsageError('missing -id=TARGET_ID');
  const s = await client.authorizeSession(opts.id, opts.hostId ? { host_id: opts.hostId } : {});
  print(app, opts, s, () =>
    [
      'Target information:',
      `  Authorization Token: ${s.authorization_token}`,
      `  Connection Limit:    ${s.connection_limit}`,
      `  Created Time:        ${s.created_time}`,
      `  Endpoint:            ${s.endpoint}`,
      `  Expiration:          ${s.expiration}`,
      `  Host ID:             ${s.host_id}`,
      `  Scope ID:            ${s.scope?.id ?? ''}`,
      `  Session ID:          ${s.session_id}`,
      `  Target ID:           ${s.target_id}`,
      `  Type:                ${s.type}`,
      `  User ID:             ${s.user_id}`,
      `  Workers:             ${s.worker_info.map((w) => w.address).join(', ')}`,
      ...credentialLines(s),
      '',
    ].join('\n'),
  );
  return 0;
};

interface ConnectOpts extends AuthorizeOpts {
  listenAddr: string;
  listenPort: string;
  proxyCaCert?: string;
}

/** How often `connect` reads its session to notice that it ended, in ms (one worker status interval). */
const CONNECT_POLL_MS = 1000;

/**
 * `connect` (the reference's `boundary connect`): authorises a session to `-target-id`,
 * listens locally and carries every accepted connection through the first worker the
 * controller offered. Ends when the session ends (canceled, expired, its connection limit
 * used up: read every {@link CONNECT_POLL_MS}) or on Ctrl-C, which cancels the session.
 */
const connect: Action<ConnectOpts> = async (app, client, opts) => {
  if (!opts.targetId) throw new UsageError('missing -target-id=TARGET_ID');
  if (!/^\d{1,5}$/.test(opts.listenPort) || Number(opts.listenPort) > 65535) throw new UsageError(`invalid -listen-port "${opts.listenPort}"`);
  const ca = opts.proxyCaCert === undefined ? undefined : readCa(opts.proxyCaCert);
  const s = await client.authorizeSession(opts.targetId, opts.hostId ? { host_id: opts.hostId } : {});
  const worker = s.worker_info[0]?.address;
  if (!worker) throw new Error('the controller offered no worker for the session');
  const open = new Set<net.Socket>();
  const server = net.createServer((local) => {
    open.add(local);
    local.once('close', () => open.delete(local));
    local.pause();
    connectSession({ worker, token: s.authorization_token, tls: ca === undefined ? undefined : { caCert: ca } }).then(
      ({ socket }) => {
        local.on('error', () => socket.destroy());
        socket.on('error', () => local.destroy());
        socket.once('close', () => local.destroy());
        local.pipe(socket);
        socket.pipe(local);
        local.resume();
      },
      (err: Error) => {
        app.io.stderr(`Error: ${err.message}\n`);
        local.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen on ${opts.listenAddr}:${opts.listenPort}: ${err.message}`)));
    server.listen(Number(opts.listenPort), opts.listenAddr, () => resolve());
  });
  const bound = server.address() as net.AddressInfo;
  // Listening for Ctrl-C before the address is printed: whoever reads it may interrupt at once.
  const stop = interruption(app.io);
  const info = {
    address: bound.address,
    port: bound.port,
    protocol: 'tcp',
    expiration: s.expiration,
    connection_limit: s.connection_limit,
    session_id: s.session_id,
    credentials: s.credentials,
  };
  print(app, opts, info, () =>
    [
      'Proxy listening information:',
      `  Address:             ${bound.address}`,
      `  Connection Limit:    ${s.connection_limit}`,
      `  Expiration:          ${s.expiration}`,
      `  Port:                ${bound.port}`,
      `  Protocol:            tcp`,
      `  Session ID:          ${s.session_id}`,
      ...credentialLines(s),
      '',
    ].join('\n'),
  );
  const polling = new AbortController();
  const ended = await Promise.race([
    new Promise<undefined>((resolve) =>
      stop.signal.aborted ? resolve(undefined) : stop.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    ),
    sessionEnd(client, s, polling.signal),
  ]);
  // Ends sessionEnd's polling: its timer would keep the process alive after Ctrl-C.
  polling.abort();
  stop.dispose();
  server.close();
  for (const sock of open) sock.destroy();
  if (ended === undefined) await client.cancelSession(s.session_id).catch(() => undefined);
  else app.io.stderr(`Session ${s.session_id} ended: ${ended}.\n`);
  return 0;
};

/**
 * Resolves with the end reason once the session is canceling or terminated, or at its
 * expiration; with `'interrupted'` (and stops polling) once `signal` aborts.
 */
async function sessionEnd(client: GatewayClient, s: AuthorizedSession, signal: AbortSignal): Promise<string> {
  const expiresAt = Date.parse(s.expiration);
  for (let readable = true; ;) {
    await new Promise<void>((r) => {
      const timer = setTimeout(r, Math.max(0, Math.min(CONNECT_POLL_MS, expiresAt - Date.now())));
      signal.addEventListener('abort', () => (clearTimeout(timer), r()), { once: true });
    });
    if (signal.aborted) return 'interrupted';
    if (Date.now() >= expiresAt) return 'expired';
    if (!readable) continue;
    try {
      const now = await client.readSession(s.session_id);
      if (now.status === 'canceling' || now.status === 'terminated') return now.termination_reason ?? now.status;
    } catch (err) {
      if (err instanceof GatewayApiError && err.status === 404) return 'deleted';
      // Without read permission on the session only its expiration ends the command.
      if (err instanceof GatewayApiError && err.status === 403) readable = false;
    }
  }
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`-proxy-ca-cert: cannot read "${file}": ${(err as Error).message}`);
  }
}

interface SessionOpts extends CommonOpts {
  id?: string;
  scopeId: string;
  recursive?: boolean;
}

/** Adds the gateway client commands to the `gateway` group of `program` (made here when absent). */
export function addGatewayClientCommands(app: App, program: Command): void {
  const group = commandGroup(program, 'gateway', 'access gateway commands');
  const targets = commandGroup(group, 'targets', 'targets: authorize a session');
  common(targets.command('authorize-session').description('authorize a session to a target and print its authorization token'))
    .option('--id <id>', 'the target id (ttcp_…)')
    .option('--host-id <id>', "the host to connect to, among the target's host sources (default: one at random)")
    .action(run(app, authorize));
  const sessions = commandGroup(group, 'sessions', 'sessions: list, read, cancel');
  common(sessions.command('list').description('list sessions'))
    .option('--scope-id <id>', 'the scope to list (with -recursive: and those below it)', 'global')
    .option('--recursive', 'include the scopes below')
    .action(
      run<SessionOpts>(app, async (a, client, opts) => {
        const items = await client.listSessions({ scope_id: opts.scopeId, recursive: opts.recursive ?? false });
        print(a, opts, items, () => sessionRows(items));
        return 0;
      }),
    );
  common(sessions.command('read').description('read a session').option('--id <id>', 'the session id (s_…)')).action(
    run<SessionOpts>(app, async (a, client, opts) => {
      if (!opts.id) throw new UsageError('missing -id=SESSION_ID');
      const s = await client.readSession(opts.id);
      print(a, opts, s, () => sessionText(s));
      return 0;
    }),
  );
  common(sessions.command('cancel').description('cancel a session: workers close its connections').option('--id <id>', 'the session id (s_…)')).action(
    run<SessionOpts>(app, async (a, client, opts) => {
      if (!opts.id) throw new UsageError('missing -id=SESSION_ID');
      const s = await client.cancelSession(opts.id);
      print(a, opts, s, () => sessionText(s));
      return 0;
    }),
  );
  common(group.command('workers').description('list the workers known to the controller (recovery token)')).action(
    run(app, async (a, client, opts) => {
      const workers = await client.listWorkers();
      print(a, opts, workers, () => workers.map((w) => `${w.name}  ${w.state}  ${w.address}  sessions=${w.active_session_count}`).join('\n') + '\n');
      return 0;
    }),
  );
  common(group.command('connect').description('authorize a session to a target and proxy local connections to it through a worker'))
    .option('--target-id <id>', 'the target id (ttcp_…)')
    .option('--host-id <id>', "the host to connect to, among the target's host sources")
    .option('--listen-addr <host>', 'local address to listen on', '127.0.0.1')
    .option('--listen-port <port>', 'local port to listen on; 0 picks one', '0')
    .option('--proxy-ca-cert <file>', 'PEM CA of a TLS proxy listener (connects with TLS)')
    .action(run(app, connect));
}
