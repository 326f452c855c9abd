/**
 * Scheduler-service benchmarks (issue 6 "Must show"), against an agent with ACLs on in its
 * own process (`sched` server kind):
 * - `sched-auth-method-read`: `GET /v1/acl/auth-method/<name>` with the management token
 *   (an OIDC method), next to the bare node:http handler of the same run.
 * - `sched-event-fanout` (one-off, after the rounds): 100 subscribers on
 *   `GET /v1/event/stream?topic=Node`, node updates published inside the server at 10,000
 *   events/s (10 per committed batch) for 30 s: delivered events/s, p99 publish-to-deliver
 *   latency (publish = the write's start, deliver = the frame read by the client), server
 *   RSS before, peak and after.
 */
import { api, type BenchContext, type RequestTemplate, type Scenario } from './harness.js';
import { epochMs, type PublishResult } from './sched-publish.js';
import { startServer, type BenchServer } from './servers.js';

const METHOD = 'bench-oidc';

/** {@link api} with `X-Sched-Token` (the server's management token unless `o.token` is given). */
function schedApi(server: BenchServer, method: string, path: string, body?: unknown, o: { token?: string | null; expect?: number } = {}) {
  return api(server, method, path, body, { ...o, tokenHeader: 'X-Sched-Token' });
}

/** Reads of one OIDC auth method with the management token. */
export const schedAuthMethodRead: Scenario = {
  name: 'sched-auth-method-read',
  description: 'scheduler `GET /v1/acl/auth-method/<name>` (ACLs on, management token)',
  server: 'sched',
  async setup(ctx: BenchContext) {
    await schedApi(ctx.servers.sched, 'POST', '/v1/acl/auth-method', {
      Name: METHOD,
      Type: 'OIDC',
      TokenLocality: 'local',
      MaxTokenTTL: '1h',
      Config: {
        OIDCDiscoveryURL: 'https://idp.example.com',
        OIDCClientID: 'cairn',
        OIDCClientSecret: 'bench-secret',
        AllowedRedirectURIs: ['http://localhost:4649/oidc/callback'],
      },
    });
  },
  async check(ctx: BenchContext) {
    const r = await schedApi(ctx.servers.sched, 'GET', `/v1/acl/auth-method/${METHOD}`);
    const m = r.json as { Name?: string; Config?: { OIDCClientSecret?: string } };
    if (m.Name !== METHOD || m.Config?.OIDCClientSecret !== 'redacted') throw new Error(`sched-auth-method-read check: ${r.text.slice(0, 300)}`);
  },
  requests(ctx: BenchContext): RequestTemplate[] {
    return [{ method: 'GET', path: `/v1/acl/auth-method/${METHOD}`, headers: { 'X-Sched-Token': ctx.servers.sched.token! } }];
  },
};

/** Settings of {@link measureEventFanout}. */
export interface FanoutSettings {
  readonly subscribers: number;
  readonly eventsPerSec: number;
  readonly seconds: number;
  /** Events per committed batch. */
  readonly batch: number;
}

/** What {@link measureEventFanout} measured. */
export interface FanoutResult {
  readonly published: PublishResult;
  /** Events delivered to all subscribers together, per second of the publishing window. */
  readonly deliveredPerSec: number;
  /** Events each subscriber received (min and max over subscribers). */
  readonly perSubscriber: { readonly min: number; readonly max: number };
  /** Publish-to-deliver latency percentiles in ms (every frame of every subscriber). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Streams the server ended before the run was over (cut as too slow), with their last line. */
  readonly cut: number;
  readonly cutReason: string;
  /** Server RSS in bytes: before subscribing, the peak sampled every 500 ms, after the run. */
  readonly rss: { readonly before: number; readonly peak: number; readonly after: number };
}

/** One subscriber: counts events and records the latency of every frame. */
async function subscribe(server: BenchServer, index: number, signal: AbortSignal, latencies: number[]): Promise<{ events: number; ended: string }> {
  const res = await fetch(`${server.url}/v1/event/stream?topic=Node&index=${index}`, { headers: { 'X-Sched-Token': server.token! }, signal });
  if (res.status !== 200) throw new Error(`event stream: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let rest = '';
  let events = 0;
  let ended = '';
  try {
    for await (const chunk of res.body!) {
      const text = rest + decoder.decode(chunk as Uint8Array, { stream: true });
      const lines = text.split('\n');
      rest = lines.pop()!;
      const now = epochMs();
      for (const line of lines) {
        if (line === '{}') continue;
        if (line.startsWith('{"Error"')) {
          ended = line;
          continue;
        }
        // The first event's bench_ts is enough: every event of a batch carries the same one.
        const at = line.indexOf('"bench_ts":"');
        if (at >= 0) latencies.push(now - Number(line.slice(at + 12, line.indexOf('"', at + 12))));
        let from = 0;
        while ((from = line.indexOf('"Topic":"Node"', from) + 1) > 0) events++;
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  return { events, ended };
}

/**
 * Runs the fan-out measurement on a fresh scheduler process (see the module doc).
 * @throws when a subscriber cannot connect or the publisher fails.
 */
export async function measureEventFanout(s: FanoutSettings): Promise<FanoutResult> {
  const server = await startServer('sched');
  try {
    const before = (await server.stats()).rss;
    const stop = new AbortController();
    const latencies: number[] = [];
    const subs = Array.from({ length: s.subscribers }, () => subscribe(server, 0, stop.signal, latencies));
    // Let every stream subscribe (each gets its heartbeat) before publishing.
    await new Promise((r) => setTimeout(r, 1000));
    let peak = before;
    const sampler = setInterval(() => {
      server.stats().then((st) => (peak = Math.max(peak, st.rss)), () => undefined);
    }, 500);
    const published = (await server.request({ type: 'publish', eventsPerSec: s.eventsPerSec, seconds: s.seconds, batch: s.batch }, (s.seconds + 60) * 1000)) as PublishResult;
    // Give the last frames time to arrive, then hang up.
    await new Promise((r) => setTimeout(r, 2000));
    clearInterval(sampler);
    stop.abort();
    const counts = await Promise.all(subs);
    const after = (await server.stats()).rss;
    const delivered = counts.reduce((a, c) => a + c.events, 0);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    const cut = counts.filter((c) => c.ended !== '');
    return {
      published,
      deliveredPerSec: delivered / (published.elapsedMs / 1000),
      perSubscriber: { min: Math.min(...counts.map((c) => c.events)), max: Math.max(...counts.map((c) => c.events)) },
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: latencies[latencies.length - 1] ?? NaN,
      cut: cut.length,
      cutReason: cut[0]?.ended ?? '',
      rss: { before, peak, after },
    };
  } finally {
    await server.close();
  }
}
