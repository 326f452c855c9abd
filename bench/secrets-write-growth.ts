/**
 * How the cost of a KV v2 write grows with the store (issue 30 item 1): one secrets server
 * (bench child, SQLite, fsync'd) with a KV v2 mount; new keys are written with wrk (32
 * connections, one request in flight each) until the store holds each checkpoint's number
 * of keys (`BENCH_GROWTH_KEYS`, default 40,000, 200,000 and 1,000,000), and at each
 * checkpoint a measured window of `config.seconds` of further new keys gives writes/s and
 * the server's CPU per write (from /proc). The fill between checkpoints is not measured.
 * PostgreSQL: the same with `BENCH_GROWTH_SERVER=secrets-pg`.
 */
import { readFileSync } from 'node:fs';
import { cpuSeconds } from './cpu.js';
import { api, runScenarioLoad, type BenchConfig, type RequestTemplate } from './harness.js';
import { secretData } from './kv.js';
import { startServer, type ServerKind } from './servers.js';

/** One checkpoint's window. */
export interface GrowthPoint {
  /** Keys written before the window. */
  readonly keys: number;
  readonly writesPerSecond: number;
  /** Server CPU per write in the window, µs. */
  readonly cpuUsPerWrite: number;
  readonly p99Ms: number;
  /** Server resident memory after the window, bytes (0 where /proc is missing). */
  readonly rssBytes: number;
}

const CONNECTIONS = 32;

/** Resident memory of process `pid` (`VmRSS`), bytes; 0 where /proc is missing. */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
/** Seconds of one fill run at most (repeated until the checkpoint is reached). */
const FILL_SECONDS = 20;

/** Runs the measurement of the module doc. */
export async function measureWriteGrowth(config: BenchConfig): Promise<{ server: ServerKind; points: GrowthPoint[] }> {
  const checkpoints = (config.env.BENCH_GROWTH_KEYS ?? '40000,200000,1000000').split(',').map(Number);
  const kind = (config.env.BENCH_GROWTH_SERVER ?? 'secrets') as ServerKind;
  const server = await startServer(kind);
  const points: GrowthPoint[] = [];
  try {
    const headers = { 'X-Secrets-Token': server.token!, 'content-type': 'application/json' };
    const requests: RequestTemplate[] = [
      { method: 'POST', headers, body: JSON.stringify({ data: secretData(0) }), distinctPath: '/v1/secret/data/growth/k{n}' },
    ];
    await api(server, 'POST', '/v1/secret/data/growth/check', { body: { data: secretData(0) } });
    let keys = 0;
    /** Writes/s of the last fill run: the next one lasts about as long as the checkpoint needs (a 2 s probe first). */
    let rate = 0;
    for (const target of checkpoints) {
      while (keys < target) {
        const seconds = rate > 0 ? Math.max(1, Math.min(FILL_SECONDS, Math.ceil((target - keys) / rate))) : 2;
        const fill = await runScenarioLoad(server.url, requests, { seconds, connections: CONNECTIONS });
        if (fill.non2xx + fill.errors > 0) throw new Error(`secrets-write-growth: ${fill.non2xx} non-2xx and ${fill.errors} errors while filling`);
        keys += fill.totalRequests;
        rate = fill.totalRequests / seconds;
      }
      const cpu0 = cpuSeconds(server.pid) ?? NaN;
      const w = await runScenarioLoad(server.url, requests, { seconds: config.seconds, connections: CONNECTIONS });
      const cpu = (cpuSeconds(server.pid) ?? NaN) - cpu0;
      points.push({
        keys,
        writesPerSecond: w.reqPerSec,
        cpuUsPerWrite: (cpu * 1e6) / Math.max(1, w.totalRequests),
        p99Ms: w.p99Ms,
        rssBytes: rssOf(server.pid),
      });
      keys += w.totalRequests;
    }
  } finally {
    await server.close();
  }
  return { server: kind, points };
}
