/**
 * Access gateway benchmarks (issue 4 "Must show"):
 * - `gateway-health`: `GET /health` on the ops listener of a controller+worker process
 *   (what a load balancer polls), next to the bare node:http handler of the same run.
 * - `gateway-restart`: the time from a controller restart to its worker's upstream
 *   connection being `READY` again, as `/health?worker_info=1` shows it.
 */
import { createServer } from 'node:net';
import type { RequestTemplate, Scenario } from './harness.js';
import { startServer, type BenchServer } from './servers.js';

export const gatewayHealth: Scenario = {
  name: 'gateway-health',
  description: 'gateway GET /health on the ops listener (controller + worker in one process)',
  server: 'gateway',
  async check(ctx) {
    const r = await fetch(`${ctx.servers.gateway.url}/health`);
    const body = await r.text();
    if (r.status !== 200 || body !== '{}') throw new Error(`gateway /health: ${r.status} ${body}`);
  },
  requests(): RequestTemplate[] {
    return [{ method: 'GET', path: '/health' }];
  },
};

/** One restart: milliseconds from spawning the new controller, and from its listening, to the worker's READY. */
export interface RestartSample {
  readonly fromSpawnMs: number;
  readonly fromListeningMs: number;
}

async function upstreamState(worker: BenchServer): Promise<string> {
  const r = await fetch(`${worker.url}/health?worker_info=1`);
  return ((await r.json()) as { worker_process_info: { upstream_connection_state: string } }).worker_process_info.upstream_connection_state;
}

async function until(read: () => Promise<string>, want: (s: string) => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!want(await read())) {
    if (performance.now() > end) throw new Error(`gateway-restart: worker state not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * Stops and restarts a controller (own process, same cluster port) `restarts` times
 * while a worker (own process, default 2 s status interval and 0.2–1 s reconnect
 * backoff) stays up; each time waits until the worker has left `READY`, then measures.
 */
export async function measureControllerRestart(restarts: number): Promise<RestartSample[]> {
  const cluster = `127.0.0.1:${await freePort()}`;
  let controller = await startServer('gateway-controller', { cluster });
  const worker = await startServer('gateway-worker', { upstream: cluster });
  const samples: RestartSample[] = [];
  try {
    await until(
      () => upstreamState(worker),
      (s) => s === 'READY',
      15_000,
    );
    for (let i = 0; i < restarts; i++) {
      await controller.close();
      await until(
        () => upstreamState(worker),
        (s) => s !== 'READY',
        15_000,
      );
      const t0 = performance.now();
      controller = await startServer('gateway-controller', { cluster });
      const t1 = performance.now();
      await until(
        () => upstreamState(worker),
        (s) => s === 'READY',
        15_000,
      );
      const t2 = performance.now();
      samples.push({ fromSpawnMs: t2 - t0, fromListeningMs: t2 - t1 });
    }
  } finally {
    await worker.close();
    await controller.close();
  }
  return samples;
}
