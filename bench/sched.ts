/**
 * Scheduler-service benchmarks (issue 6 "Must show"), against an agent with ACLs on in its
 * own process (`sched` server kind):
 * - `sched-auth-method-read`: `GET /v1/acl/auth-method/<name>` with the management token
 *   (an OIDC method), next to the bare node:http handler of the same run.
 * - `sched-event-fanout` (one-off, after the rounds): 100 subscribers on
 *   `GET /v1/event/stream?topic=Node`, node updates published inside the server at 10,000
 *   events/s (10 per committed batch) for 30 s: delivered events/s, p99 publish-to-deliver
 *   latency (publish = the write's start, deliver = the frame read by the client), server
 *   RSS before, peak and after. By default 98 of the subscribers are `curl -sN` processes
 *   and 2 are instrumented node:http readers (latency samples), as the issue asks.
 */
import { spawn, spawnSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { get as httpGet } from 'node:http';
import { api, type BenchContext, type RequestTemplate, type Scenario } from './harness.js';
import { epochMs, type PublishResult } from './sched-publish.js';
import { startServer, type BenchServer } from './servers.js';

const METHOD = 'bench-oidc';

/** {@link api} with `X-Sched-Token` (the server's management token unless `o.token` is given). */
function schedApi(server: BenchServer, method: string, path: string, o: { body?: unknown; token?: string | null; expect?: number } = {}) {
  return api(server, method, path, { ...o, tokenHeader: 'X-Sched-Token' });
}

/** Reads of one OIDC auth method with the management token. */
export const schedAuthMethodRead: Scenario = {
  name: 'sched-auth-method-read',
  description: 'scheduler `GET /v1/acl/auth-method/<name>` (ACLs on, management token)',
  server: 'sched',
  async setup(ctx: BenchContext) {
    await schedApi(ctx.servers.sched, 'POST', '/v1/acl/auth-method', {
      body: {
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
  /** The server's `event_buffer_size`, in batches. */
  readonly eventBufferSize: number;
  /**
   * `curl`: all but {@link INSTRUMENTED} subscribers are `curl -sN` processes (the issue's
   * cheap reader: the bench's own event loop then carries 2 streams, not 100); `node`: all
   * are node:http clients in the bench process.
   */
  readonly reader: 'curl' | 'node';
}

/** node:http subscribers that take latency samples in `curl` mode. */
const INSTRUMENTED = 2;

/** What {@link measureEventFanout} measured. */
export interface FanoutResult {
  readonly published: PublishResult;
  /** The reader actually used (`curl` falls back to `node` when curl is not on PATH). */
  readonly reader: 'curl' | 'node';
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
  /** Server V8 heap in use, bytes: the peak sampled every 500 ms. */
  readonly heapPeak: number;
  /** Subscriptions the server still held after the clients hung up (should be 0). */
  readonly subscriptionsLeft: number;
}

const TOPIC = Buffer.from('"Topic":"Node"');
const STAMP = Buffer.from('"bench_ts":"');
const ERROR = Buffer.from('{"Error"');

/**
 * One subscriber over node:http, reading raw bytes (a client in the same process as 99
 * others must stay cheap): counts events by their `"Topic":"Node"`, takes the latency of
 * each frame from its first `bench_ts`, and keeps the server's end line if one comes.
 * Chunks are scanned as they arrive; a marker split across two chunks is missed, which
 * undercounts by a handful in a run of millions.
 */
function subscribe(server: BenchServer, index: number, signal: AbortSignal, latencies: number[]): Promise<{ events: number; bytes: number; ended: string }> {
  return new Promise((resolve, reject) => {
    let events = 0;
    let bytes = 0;
    let ended = '';
    const req = httpGet(`${server.url}/v1/event/stream?topic=Node&index=${index}`, { headers: { 'X-Sched-Token': server.token! }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`event stream: ${res.statusCode}`));
        res.resume();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        const now = epochMs();
        bytes += chunk.length;
        for (let at = chunk.indexOf(TOPIC); at >= 0; at = chunk.indexOf(TOPIC, at + TOPIC.length)) events++;
        // One latency sample per frame: the first stamp after each newline.
        for (let nl = -1; ;) {
          const stamp = chunk.indexOf(STAMP, nl + 1);
          if (stamp < 0) break;
          const endQuote = chunk.indexOf(34, stamp + STAMP.length);
          if (endQuote < 0) break;
          latencies.push(now - Number(chunk.toString('latin1', stamp + STAMP.length, endQuote)));
          nl = chunk.indexOf(10, endQuote);
          if (nl < 0) break;
        }
        const error = chunk.indexOf(ERROR);
        if (error >= 0) ended = chunk.toString('utf8', error, chunk.indexOf(10, error) < 0 ? undefined : chunk.indexOf(10, error));
      });
      res.on('end', () => resolve({ events, bytes, ended }));
      res.on('error', () => resolve({ events, bytes, ended }));
    });
    req.on('error', (err) => (signal.aborted ? resolve({ events, bytes, ended }) : reject(err)));
    signal.addEventListener('abort', () => req.destroy(), { once: true });
  });
}

/**
 * One subscriber run by `curl -sN` for `seconds` (`--max-time`), its bytes thrown away:
 * resolves with the bytes it read (curl's `size_download`, printed even when the time runs
 * out) and whether the server ended the stream first (any exit but 28, the time-out).
 */
function subscribeCurl(server: BenchServer, seconds: number): Promise<{ bytes: number; endedEarly: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'curl',
      [
        '-sN',
        '--max-time',
        String(seconds),
        '-o',
        '/dev/null',
        '-w',
        '%{size_download}',
        '-H',
        `X-Sched-Token: ${server.token!}`,
        `${server.url}/v1/event/stream?topic=Node&index=0`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('latin1')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ bytes: Number(out) || 0, endedEarly: code !== 28 }));
  });
}

/** Whether `curl` runs here. */
function haveCurl(): boolean {
  return spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Runs the fan-out measurement on a fresh scheduler process (see the module doc).
 * @throws when a subscriber cannot connect or the publisher fails.
 */
export async function measureEventFanout(s: FanoutSettings): Promise<FanoutResult> {
  const server = await startServer('sched', { eventBufferSize: s.eventBufferSize });
  try {
    const before = (await server.stats()).rss;
    const stop = new AbortController();
    setMaxListeners(s.subscribers + 10, stop.signal);
    const latencies: number[] = [];
    const reader = s.reader === 'curl' && haveCurl() ? 'curl' : 'node';
    const instrumented = reader === 'curl' ? Math.min(INSTRUMENTED, s.subscribers) : s.subscribers;
    const subs = Array.from({ length: instrumented }, () => subscribe(server, 0, stop.signal, latencies));
    // Subscribed 1 s before publishing, the last frames read 2 s after it: the whole run, plus a second.
    const curls = Array.from({ length: s.subscribers - instrumented }, () => subscribeCurl(server, s.seconds + 4));
    // Let every stream subscribe (each gets its heartbeat) before publishing.
    await new Promise((r) => setTimeout(r, 1000));
    let peak = before;
    let heapPeak = 0;
    const sampler = setInterval(() => {
      server.stats().then(
        (st) => {
          peak = Math.max(peak, st.rss);
          heapPeak = Math.max(heapPeak, st.heapUsed);
        },
        () => undefined,
      );
    }, 500);
    const published = (await server.request(
      { type: 'publish', eventsPerSec: s.eventsPerSec, seconds: s.seconds, batch: s.batch },
      (s.seconds + 60) * 1000,
    )) as PublishResult;
    // Give the last frames time to arrive, then hang up.
    await new Promise((r) => setTimeout(r, 2000));
    clearInterval(sampler);
    stop.abort();
    const counts = await Promise.all(subs);
    const curled = await Promise.all(curls);
    await new Promise((r) => setTimeout(r, 500));
    const final = await server.stats();
    const after = final.rss;
    // A curl reader's events: its bytes over the instrumented readers' bytes per event.
    const bytesPerEvent =
      counts.reduce((a, c) => a + c.bytes, 0) /
      Math.max(
        1,
        counts.reduce((a, c) => a + c.events, 0),
      );
    const perSubscriber = [...counts.map((c) => c.events), ...curled.map((c) => Math.round(c.bytes / bytesPerEvent))];
    const delivered = perSubscriber.reduce((a, n) => a + n, 0);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    const cut = counts.filter((c) => c.ended !== '');
    return {
      published,
      reader,
      deliveredPerSec: delivered / (published.elapsedMs / 1000),
      perSubscriber: { min: Math.min(...perSubscriber), max: Math.max(...perSubscriber) },
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: latencies[latencies.length - 1] ?? NaN,
      cut: cut.length + curled.filter((c) => c.endedEarly).length,
      cutReason: cut[0]?.ended ?? '',
      rss: { before, peak, after },
      heapPeak,
      subscriptionsLeft: final.subscriptions,
    };
  } finally {
    await server.close();
  }
}
