/**
 * The benchmark harness: the Scenario shape, one autocannon run with fine-grained
 * latency percentiles, and small statistics helpers. Scenarios live in their own files
 * (bench/kv.ts, …) and are listed in bench/run.ts.
 */
import { createRequire } from 'node:module';
import type { BenchServer, ServerKind } from './servers.js';
import { nextDistinct, runWrk, wrkCanRun, wrkInstalled } from './wrk.js';

// autocannon is CommonJS without type declarations: the part used here, typed.
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

/** autocannon's entry: one run with its options, reporting through `done` and `response` events. */
type Autocannon = (
  options: { url: string; connections: number; pipelining: number; duration: number; requests: RequestTemplate[]; timeout: number },
  done: (err: Error | null, raw: AutocannonResult) => void,
) => { on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void };

/** One request template as autocannon takes it (`setupRequest` may vary it per request). */
export interface RequestTemplate {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * A path made distinct per request: `{n}` is replaced by a counter that never repeats
   * within a bench run (distinct keys). Only as the single template of a round; wrk and
   * autocannon both understand it (prefer it to `setupRequest`, which only autocannon can run).
   */
  distinctPath?: string;
  setupRequest?: (req: RequestTemplate, context: Record<string, unknown>) => RequestTemplate;
}

/** What a scenario sees: the running servers and the run's settings. */
export interface BenchContext {
  readonly servers: Readonly<Record<ServerKind, BenchServer>>;
  readonly config: BenchConfig;
}

export interface BenchConfig {
  readonly seconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** The environment the measurements read their settings from (injected by run.ts, the entry point). */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * One measured workload. A round runs `requests(ctx)` against `server` for
 * `config.seconds` with `config.connections` connections; every reply must be 2xx.
 */
export interface Scenario {
  /** Short id, used in the table and in `--only`. */
  readonly name: string;
  /** One line for the table: what is requested. */
  readonly description: string;
  readonly server: ServerKind;
  /**
   * Connections of its rounds when fewer than the run's (`--connections`): for replies so
   * large that the run's 32 would queue each request for seconds behind the others.
   */
  readonly connections?: number;
  /** Runs once before the warm-up (e.g. pre-write keys, create policies/roles). */
  setup?(ctx: BenchContext): Promise<void>;
  /** Runs once after setup: one request whose reply is checked in full; throw on mismatch. */
  check?(ctx: BenchContext): Promise<void>;
  /** The request templates of a round (called per round, so counters can continue). */
  requests(ctx: BenchContext): RequestTemplate[];
}

/** The measurements of one round of one scenario. */
export interface RoundResult {
  readonly scenario: string;
  readonly round: number;
  /** Mean of autocannon's per-second request counts. */
  readonly reqPerSec: number;
  readonly totalRequests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  /** Server counter deltas over the round (secrets: SQLite commits, writes, rows). */
  readonly serverDelta: Record<string, number>;
  /** The load generator of the round. */
  readonly tool: 'wrk' | 'autocannon';
  /**
   * Server CPU (user + system, all threads of the server process, /proc/<pid>/stat) over
   * the round divided by the requests answered, in µs; NaN where /proc is not there.
   */
  readonly cpuUsPerReq: number;
}

/**
 * Latency histogram with 10 µs buckets up to 10 s (autocannon's own histogram has 1 ms
 * resolution, too coarse for sub-millisecond medians).
 */
class LatencyHistogram {
  private static readonly BUCKET_MS = 0.01;
  private readonly counts = new Uint32Array(1_000_001);
  private n = 0;

  record(ms: number): void {
    const i = Math.min(this.counts.length - 1, Math.floor(ms / LatencyHistogram.BUCKET_MS));
    this.counts[i]++;
    this.n++;
  }

  /** The upper edge of the bucket holding the q-quantile (0 < q ≤ 1), in ms. */
  quantile(q: number): number {
    if (this.n === 0) return NaN;
    const rank = Math.ceil(q * this.n);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return (i + 1) * LatencyHistogram.BUCKET_MS;
    }
    return NaN;
  }
}

/** Runs autocannon once against `url`; resolves with the raw result and 2xx latency percentiles. */
export function runLoad(
  url: string,
  requests: RequestTemplate[],
  o: { seconds: number; connections: number },
): Promise<{ raw: AutocannonResult; p50Ms: number; p99Ms: number }> {
  return new Promise((resolve, reject) => {
    const hist = new LatencyHistogram();
    const instance = autocannon(
      {
        url,
        connections: o.connections,
        pipelining: 1,
        duration: o.seconds,
        requests,
        timeout: 10,
      },
      (err: Error | null, raw: AutocannonResult) => {
        if (err) reject(err);
        else resolve({ raw, p50Ms: hist.quantile(0.5), p99Ms: hist.quantile(0.99) });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) hist.record(responseTime);
    });
  });
}

/** One load run as a round needs it, whichever tool sent it. */
export interface LoadResult {
  readonly tool: 'wrk' | 'autocannon';
  readonly reqPerSec: number;
  readonly totalRequests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Replies that were not 2xx (wrk: status > 399). */
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Status codes seen (autocannon only; wrk reports none). */
  readonly statusCodes: Record<string, number>;
  /** autocannon's mismatches + resets (0 for wrk). */
  readonly other: number;
}

/**
 * Sends `requests` to `url` for `o.seconds` over `o.connections` connections (1 request
 * in flight each): with wrk (`-t1`, bench/wrk.ts) when it is installed and can express
 * the requests, else with autocannon. `distinctPath` templates get a fresh `{n}` per request.
 * req/s: wrk's total / its measured duration; autocannon's mean of per-second samples.
 */
export async function runScenarioLoad(url: string, requests: RequestTemplate[], o: { seconds: number; connections: number }): Promise<LoadResult> {
  if (wrkInstalled() && wrkCanRun(requests)) {
    const w = await runWrk(url, requests, o);
    return {
      tool: 'wrk',
      reqPerSec: w.requests / w.seconds,
      totalRequests: w.requests,
      p50Ms: w.p50Ms,
      p99Ms: w.p99Ms,
      non2xx: w.statusErrors,
      errors: w.socketErrors,
      timeouts: w.timeouts,
      statusCodes: {},
      other: 0,
    };
  }
  const templates = requests.map((r) =>
    r.distinctPath === undefined
      ? r
      : {
          ...r,
          setupRequest: (req: RequestTemplate) => {
            req.path = r.distinctPath!.replace('{n}', String(nextDistinct()));
            return req;
          },
        },
  );
  const { raw, p50Ms, p99Ms } = await runLoad(url, templates, o);
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(raw.statusCodeStats ?? {})) statusCodes[code] = Number(v.count);
  return {
    tool: 'autocannon',
    reqPerSec: raw.requests.average,
    totalRequests: raw.requests.total,
    p50Ms,
    p99Ms,
    non2xx: raw.non2xx,
    errors: raw.errors,
    timeouts: raw.timeouts,
    statusCodes,
    other: raw.mismatches + raw.resets,
  };
}

/** The fields of autocannon's result used here. */
export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  resets: number;
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
}

/** The `q`-quantile (0 < q ≤ 1) of ascending `sorted` (nearest rank); NaN when empty. */
export const quantileOf = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

/** The `p`-th percentile (0 < p ≤ 100) of `xs`, in any order (nearest rank). */
export const percentile = (xs: readonly number[], p: number): number =>
  quantileOf(
    [...xs].sort((a, b) => a - b),
    p / 100,
  );

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * fetch with a JSON body (`o.body`, none when undefined) and the token header (`o.tokenHeader`,
 * default `X-Secrets-Token`; the server's root token unless `o.token` is given; `null` sends
 * none); throws unless the status is 2xx, or unless it is `o.expect` when given. Returns the
 * reply's headers too.
 */
export async function api(
  server: BenchServer,
  method: string,
  path: string,
  o: { body?: unknown; token?: string | null; expect?: number; tokenHeader?: string } = {},
): Promise<{ status: number; json: unknown; text: string; headers: Headers }> {
  const { body } = o;
  const headers: Record<string, string> = {};
  const token = o.token === undefined ? server.token : o.token;
  if (token) headers[o.tokenHeader ?? 'X-Secrets-Token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(server.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (o.expect === undefined ? res.status < 200 || res.status >= 300 : res.status !== o.expect) {
    throw new Error(`${method} ${path} → ${res.status}${o.expect === undefined ? '' : ` (expected ${o.expect})`}: ${text.slice(0, 500)}`);
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** Runs `fn(i)` for i in [0, n) with at most `concurrency` in flight. */
export async function parallel(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
}
