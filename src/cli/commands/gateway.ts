/**
 * Access gateway client commands, through the SDK (src/sdk/gateway.ts):
 *
 * - `cairn gateway authorize-session -target=HOST:PORT [-ttl=1h] [-connection-limit=N]`
 * - `cairn gateway sessions`, `cairn gateway cancel-session ID`, `cairn gateway workers`
 * - `cairn gateway connect -target=HOST:PORT [-listen-addr=127.0.0.1] [-listen-port=0]`:
 *   authorises a session, listens locally and carries every local connection through a
 *   worker to the target until Ctrl-C, then cancels the session (the reference's
 *   `connect` command).
 *
 * Every command reads `-addr` (else `GATEWAY_ADDR`, default `http://127.0.0.1:9200`) and
 * `-token` (else `GATEWAY_TOKEN`), the controller's api token. Exit codes: 0 ok, 1 the
 * controller or a worker refused or could not be reached, 2 usage error.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Command } from 'commander';
import { connectSession, GatewayApiError, GatewayClient, type GatewaySession } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, commandGroup } from '../context.js';
import { toJson } from '../format.js';
import { waitForShutdown } from '../shutdown.js';

/** Default controller api address (reference/gateway.md §1). */
export const DEFAULT_GATEWAY_ADDRESS = 'http://127.0.0.1:9200';

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
  const rows = [['ID', 'STATUS', 'ENDPOINT', 'CONNECTIONS', 'EXPIRATION']];
  for (const s of sessions) rows.push([s.id, s.status, s.endpoint, String(s.connections.filter((c) => c.status === 'connected').length), s.expiration_time]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

interface AuthorizeOpts {
  target?: string;
  ttl?: string;
  connectionLimit?: string;
}

function authorizeInput(o: AuthorizeOpts) {
  if (!o.target) throw new UsageError('missing -target=HOST:PORT');
  let limit: number | undefined;
  if (o.connectionLimit !== undefined) {
    if (!/^-?\d+$/.test(o.connectionLimit)) throw new UsageError(`invalid -connection-limit "${o.connectionLimit}": expected an integer`);
    limit = Number(o.connectionLimit);
  }
  return { target: o.target, ttl: o.ttl, connection_limit: limit };
}

const authorize: Action<AuthorizeOpts> = async (app, client, opts) => {
  const s = await client.authorizeSession(authorizeInput(opts));
  print(app, opts, s, () =>
    [
      `Session ID            ${s.session_id}`,
      `Endpoint              ${s.endpoint}`,
      `Expiration            ${s.expiration}`,
      `Connection limit      ${s.connection_limit}`,
      `Workers               ${s.worker_info.map((w) => w.address).join(', ')}`,
      `Authorization token   ${s.authorization_token}`,
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

/**
 * `connect`: one session, a local listener, each local connection carried through the
 * first worker the controller offered. Ends on Ctrl-C (or `io.shutdown`) and cancels the
 * session.
 */
const connect: Action<ConnectOpts> = async (app, client, opts) => {
  if (!/^\d{1,5}$/.test(opts.listenPort) || Number(opts.listenPort) > 65535) throw new UsageError(`invalid -listen-port "${opts.listenPort}"`);
  const ca = opts.proxyCaCert === undefined ? undefined : readCa(opts.proxyCaCert);
  const s = await client.authorizeSession(authorizeInput(opts));
  const worker = s.worker_info[0]?.address;
  if (!worker) throw new Error('the controller offered no worker for the session');
  const server = net.createServer((local) => {
    local.pause();
    connectSession({ worker, token: s.authorization_token, tls: ca === undefined ? undefined : { caCert: ca } }).then(
      ({ socket }) => {
        local.on('error', () => socket.destroy());
        socket.on('error', () => local.destroy());
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
  const shown = bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
  print(app, opts, { session_id: s.session_id, address: shown, endpoint: s.endpoint, expiration: s.expiration, worker }, () =>
    [
      `Proxy listening on ${shown}`,
      `Session ID         ${s.session_id}`,
      `Endpoint           ${s.endpoint}`,
      `Expiration         ${s.expiration}`,
      `Worker             ${worker}`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  const expired = new Promise<void>((r) => setTimeout(r, Math.max(0, Date.parse(s.expiration) - Date.now())).unref());
  await Promise.race([waitForShutdown(app), expired]);
  server.close();
  await client.cancelSession(s.session_id).catch(() => undefined);
  return 0;
};

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`-proxy-ca-cert: cannot read "${file}": ${(err as Error).message}`);
  }
}

/** Adds the gateway client commands to the `gateway` group of `program` (made here when absent). */
export function addGatewayClientCommands(app: App, program: Command): void {
  const group = commandGroup(program, 'gateway', 'access gateway commands');
  const auth = (cmd: Command) =>
    common(cmd)
      .option('--target <host:port>', 'the TCP target')
      .option('--ttl <duration>', 'session lifetime, e.g. 1h (default 8h, at most 24h)')
      .option('--connection-limit <n>', 'connections allowed; -1 = unlimited (default)');

  auth(group.command('authorize-session').description('authorise a session to a target and print its authorization token')).action(run(app, authorize));
  common(group.command('sessions').description('list sessions, newest first')).action(
    run(app, async (a, client, opts) => {
      const sessions = await client.listSessions();
      print(a, opts, sessions, () => sessionRows(sessions));
      return 0;
    }),
  );
  common(group.command('cancel-session').argument('<id>', 'session ID').description('cancel a session: its connections are closed')).action(
    run(app, async (a, client, opts, args) => {
      const s = await client.cancelSession(args[0]);
      print(a, opts, s, () => `Session ${s.id} is ${s.status}.\n`);
      return 0;
    }),
  );
  common(group.command('workers').description('list the workers known to the controller')).action(
    run(app, async (a, client, opts) => {
      const workers = await client.listWorkers();
      print(a, opts, workers, () => workers.map((w) => `${w.name}  ${w.state}  ${w.address}  sessions=${w.active_session_count}`).join('\n') + '\n');
      return 0;
    }),
  );
  auth(group.command('connect').description('authorise a session and proxy local connections to the target through a worker'))
    .option('--listen-addr <host>', 'local address to listen on', '127.0.0.1')
    .option('--listen-port <port>', 'local port to listen on; 0 picks one', '0')
    .option('--proxy-ca-cert <file>', 'PEM CA of a TLS proxy listener (connects with TLS)')
    .action(run(app, connect));
}
