/**
 * Access gateway sessions (issue 20 "Tests and measurements"), one-off `gateway-sessions`
 * against a controller+worker process on a SQLite state with a TCP echo server as the
 * target (bench/child.ts `gateway-sessions`):
 * - `POST /v1/targets/<id>:authorize-session` per second (recovery credential,
 *   `concurrency` requests in flight, each one a session written to the state);
 * - connection set-up latency through the worker: from dialling the proxy listener to the
 *   first echoed byte (token line, the controller's connection check, the worker dialling
 *   the target), p50/p99, next to dialling the echo server directly;
 * - throughput of one proxied connection (bytes sent and echoed back), next to a direct one.
 */
import net from 'node:net';
import { connectSession, GatewayClient } from '../src/sdk/index.js';
import { startServer } from './servers.js';

/** What {@link measureGatewaySessions} found. */
export interface GatewaySessionFigures {
  readonly authorizePerSecond: number;
  readonly setupMs: { readonly proxied: readonly number[]; readonly direct: readonly number[] };
  /** MiB/s echoed (each byte sent and received once). */
  readonly throughputMiBs: { readonly proxied: number; readonly direct: number };
}

/** Sends one byte and waits for it back. */
const firstEcho = (socket: net.Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once('data', () => resolve());
    socket.once('error', reject);
    socket.write('x');
  });

/** Writes `bytes` through `socket` in 64 KiB chunks and resolves once all came back; MiB/s. */
function echoThroughput(socket: net.Socket, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 7);
    let got = 0;
    const t0 = performance.now();
    socket.on('data', (d: Buffer) => {
      got += d.length;
      if (got >= bytes) resolve(bytes / 1024 / 1024 / ((performance.now() - t0) / 1000));
    });
    socket.once('error', reject);
    socket.resume();
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

const dial = (address: string) =>
  new Promise<net.Socket>((resolve, reject) => {
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const s = net.connect({ host, port }, () => resolve(s));
    s.setNoDelay(true);
    s.once('error', reject);
  });

/**
 * Runs the three measurements: `seconds` of authorize-session with `concurrency` in
 * flight, `setups` sequential connection set-ups each way, `mib` MiB echoed each way.
 */
export async function measureGatewaySessions(o: { seconds: number; concurrency: number; setups: number; mib: number }): Promise<GatewaySessionFigures> {
  const server = await startServer('gateway-sessions');
  const client = new GatewayClient({ address: server.url, token: server.token });
  const target = 'ttcp_1234567890';
  try {
    const deadline = Date.now() + 15_000;
    let s = await client.authorizeSession(target).catch(() => undefined);
    while (!s) {
      if (Date.now() > deadline) throw new Error('gateway-sessions: no worker became available');
      await new Promise((r) => setTimeout(r, 100));
      s = await client.authorizeSession(target).catch(() => undefined);
    }
    const echoAddress = s.endpoint.replace(/^tcp:\/\//, '');
    const worker = s.worker_info[0].address;

    let done = 0;
    const end = performance.now() + o.seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (performance.now() < end) {
          await client.authorizeSession(target);
          done++;
        }
      }),
    );
    const authorizePerSecond = done / ((performance.now() - t0) / 1000);

    const proxied: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < o.setups; i++) {
      let t = performance.now();
      const c = await connectSession({ worker, token: s.authorization_token });
      await firstEcho(c.socket);
      proxied.push(performance.now() - t);
      c.socket.destroy();
      t = performance.now();
      const d = await dial(echoAddress);
      await firstEcho(d);
      direct.push(performance.now() - t);
      d.destroy();
    }

    const bytes = o.mib * 1024 * 1024;
    const pc = await connectSession({ worker, token: s.authorization_token });
    const proxiedMiBs = await echoThroughput(pc.socket, bytes);
    pc.socket.destroy();
    const dc = await dial(echoAddress);
    const directMiBs = await echoThroughput(dc, bytes);
    dc.destroy();
    return { authorizePerSecond, setupMs: { proxied, direct }, throughputMiBs: { proxied: proxiedMiBs, direct: directMiBs } };
  } finally {
    await client.close();
    await server.close();
  }
}
