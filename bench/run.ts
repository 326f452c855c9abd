/**
 * Cairn throughput benchmark (`npm run bench`).
 *
 * Each server runs in its own child process (bench/child.ts); autocannon runs here.
 * Scenarios are measured in interleaved rounds (round r runs every scenario once, the
 * starting scenario rotating per round) after one warm-up pass, because this host's
 * timing drifts a lot between minutes: only numbers from the same interleaved run are
 * comparable (reference/ecosystem.md §2).
 *
 * Settings (CLI flag or environment variable, flag wins):
 *   --seconds N      BENCH_SECONDS      seconds per scenario per round (default 5)
 *   --rounds N       BENCH_ROUNDS       measured rounds (default 3)
 *   --warmup N       BENCH_WARMUP       warm-up seconds per scenario, not measured (default 2)
 *   --connections N  BENCH_CONNECTIONS  concurrent connections (default 32)
 *   --only a,b       BENCH_ONLY         run only these scenarios (names in the table, or the
 *                                       one-off measurements gateway-restart, gateway-sessions, mesh-replication-lag, mesh-blocking-wake, secrets-pki-issue,
 *                                       sched-event-fanout, sched-volume-list, sched-volume-register,
 *                                       sched-placement, sched-client-run, sched-service-register,
 *                                       sched-service-reconcile, template-rerender, template-idle-cpu)
 *   --json FILE      BENCH_JSON         also write all round results as JSON
 *                    BENCH_FANOUT       sched-event-fanout runs, SUBSCRIBERSxEVENTS_PER_SECxBATCHxBUFFER
 *                                       (BUFFER = event_buffer_size in batches), comma-separated
 *                                       (default 100x10000x10x100,100x10000x10x1000,100x4000x10x100,100x1000x10x100)
 *                    BENCH_FANOUT_READER  node: every subscriber a node:http client (default: 98 curl + 2 node)
 *                    BENCH_VOLUMES      sched-volume-list: volume rows seeded (default 100000)
 *                    BENCH_VOLUME_LIST_REQUESTS  sched-volume-list: measured requests per case (default 200)
 *                    BENCH_SVC_INSTANCES  sched-service-register: instances of the job (default 100)
 *                    BENCH_SVC_RECONCILE  sched-service-reconcile: registrations the client holds (default 1000)
 *                    BENCH_TPL_ALLOCS   template-rerender, template-idle-cpu: allocations, each with one template (default 100)
 *                    BENCH_TPL_ROUNDS   template-rerender: measured KV changes (default 10)
 *                    BENCH_TPL_IDLE_SECONDS  template-idle-cpu: seconds at rest per case (default 45)
 *                    BENCH_TPL_CLIENT_NODE_OPTIONS  template-*: NODE_OPTIONS of their client agent (node refuses
 *                                       --cpu-prof there: an --import of a node:inspector preload instead)
 *                    BENCH_TPL_MESH_MAX_CONNS  template-*: the discovery agent's http_max_conns_per_client (default 200)
 *   --strict         BENCH_STRICT=1     exit 1 when a target is missed (default: report only)
 *                    BENCH_PG_URL       kv-read-pg/kv-write-pg: an existing PostgreSQL database (also
 *                                       CAIRN_TEST_PG_URL); default: a throwaway cluster (fsync on)
 *                                       started by the secrets-pg server process
 *                    BENCH_CHILD_ARGS   extra node flags for the server processes, e.g.
 *                                       "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *                    BENCH_SERVER_SOURCE  dist|src: the servers run the compiled dist/ (default when it
 *                                       is up to date, as `npm run bench` makes it) or src/ through tsx
 *                                       (bench/server-source.ts)
 *
 * Exit status: 0 on success; 1 on any non-2xx reply, connection error, timeout, failed
 * check or server crash (and with --strict, a missed target).
 *
 * Adding a scenario: write a `Scenario` (bench/harness.ts; see bench/kv.ts), add it to
 * `SCENARIOS`; a new server kind goes into bench/child.ts and bench/servers.ts; a new
 * target into `TARGETS`.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './cpu.js';
import { median, runScenarioLoad, type BenchConfig, type BenchContext, type RoundResult, type Scenario } from './harness.js';
import { approleLogin } from './approle.js';
import { secretsJwtLogin } from './secrets-jwt.js';
import { bareAesEncrypt, transitEncrypt } from './secrets-transit.js';
import { secretsDatabaseCreds } from './secrets-database.js';
import { workloadIdentityLogin } from './workload-identity.js';
import { gatewayHealth } from './gateway.js';
import { bareGet, kvRead, kvReadAudit, kvReadPg, kvWrite, kvWritePg, secretData } from './kv.js';
import { meshJwtLogin, meshTokenRead } from './mesh.js';
import { meshHealth10k } from './mesh-health.js';
import { meshKvCas, meshKvRead } from './mesh-kv.js';
import { fmtInt, fmtMs, log, ONE_OFFS } from './oneoffs.js';
import { kvReadPolicy } from './policy.js';
import { schedAuthMethodRead } from './sched.js';
import { configureServers, startServer, type BenchServer, type ServerKind } from './servers.js';
import { byScenario, TARGETS } from './targets.js';
import { wrkInstalled } from './wrk.js';

/** Every scenario, in table order. */
const SCENARIOS: readonly Scenario[] = [
  bareGet,
  kvRead,
  kvReadAudit,
  kvReadPolicy,
  kvWrite,
  kvReadPg,
  kvWritePg,
  approleLogin,
  secretsJwtLogin,
  transitEncrypt,
  bareAesEncrypt,
  secretsDatabaseCreds,
  workloadIdentityLogin,
  gatewayHealth,
  meshTokenRead,
  meshJwtLogin,
  meshKvRead,
  meshKvCas,
  meshHealth10k,
  schedAuthMethodRead,
];

/** Names of the measurements outside the interleaved rounds (bench/oneoffs.ts), run after them; selectable with `--only`. */
const ONE_OFF_NAMES = ONE_OFFS.map((o) => o.name);

// ---------------------------------------------------------------------------------------

function parseConfig(): BenchConfig & { only: string[] | undefined; json: string | undefined; strict: boolean } {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      strict: { type: 'boolean' },
    },
    allowPositionals: false,
  });
  const num = (flag: string | undefined, env: string, dflt: number, min: number): number => {
    const raw = flag ?? process.env[env];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`bad ${env}/--${env.slice(6).toLowerCase()}: ${raw}`);
    return n;
  };
  const only = (values.only ?? process.env.BENCH_ONLY)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    seconds: num(values.seconds, 'BENCH_SECONDS', 5, 1),
    rounds: Math.floor(num(values.rounds, 'BENCH_ROUNDS', 3, 1)),
    warmupSeconds: num(values.warmup, 'BENCH_WARMUP', 2, 0),
    connections: Math.floor(num(values.connections, 'BENCH_CONNECTIONS', 32, 1)),
    env: process.env,
    only: only && only.length > 0 ? only : undefined,
    json: values.json ?? (process.env.BENCH_JSON || undefined),
    strict: values.strict ?? process.env.BENCH_STRICT === '1',
  };
}

/** One load run of `s` (wrk or autocannon, bench/harness.ts `runScenarioLoad`); throws (after logging) on any non-2xx/error/timeout. */
async function measure(s: Scenario, ctx: BenchContext, seconds: number, round: number): Promise<RoundResult> {
  const server = ctx.servers[s.server];
  const before = await server.stats();
  const requests = s.requests(ctx);
  const cpuBefore = cpuSeconds(server.pid);
  const load = await runScenarioLoad(server.url, requests, { seconds, connections: Math.min(s.connections ?? Infinity, ctx.config.connections) });
  const cpuAfter = cpuSeconds(server.pid);
  const after = await server.stats();
  const serverDelta: Record<string, number> = {};
  for (const k of Object.keys(after)) serverDelta[k] = (after[k] ?? 0) - (before[k] ?? 0);
  const cpuUsPerReq = cpuBefore === undefined || cpuAfter === undefined ? NaN : ((cpuAfter - cpuBefore) * 1e6) / load.totalRequests;
  const r: RoundResult = {
    scenario: s.name,
    round,
    reqPerSec: load.reqPerSec,
    totalRequests: load.totalRequests,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    statusCodes: load.statusCodes,
    serverDelta,
    tool: load.tool,
    cpuUsPerReq,
  };
  const label = round === 0 ? 'warm-up' : `round ${round}`;
  log(
    `${label} ${s.name} (${load.tool}): ${fmtInt(r.reqPerSec)} req/s, server CPU ${fmtInt(cpuUsPerReq)} µs/req, ` +
      `p50 ${fmtMs(load.p50Ms)} ms, p99 ${fmtMs(load.p99Ms)} ms` +
      (serverDelta.commits !== undefined ? `, ${fmtInt(serverDelta.commits)} commits, ${fmtInt(serverDelta.writes ?? 0)} writes` : ''),
  );
  if (load.non2xx > 0 || load.errors > 0 || load.timeouts > 0 || load.other > 0) {
    throw new Error(
      `${s.name} (${label}): ${load.non2xx} non-2xx, ${load.errors} errors, ${load.timeouts} timeouts, ` +
        `${load.other} mismatches/resets; status codes ${JSON.stringify(load.statusCodes)}`,
    );
  }
  if (r.totalRequests === 0) throw new Error(`${s.name} (${label}): no request completed`);
  return r;
}

/** The results as Markdown; `serversLine` says which code the servers ran (configureServers). */
function report(scenarios: readonly Scenario[], rounds: readonly RoundResult[], config: BenchConfig, serversLine: string): string {
  const lines: string[] = [];
  lines.push(
    `${config.connections} connections, ${config.rounds} interleaved rounds × ${config.seconds} s per scenario ` +
      `(after ${config.warmupSeconds} s warm-up each); req/s = median over rounds of each round's mean; ` +
      `p50/p99 = median over rounds (2xx replies). Load generator: ` +
      `${wrkInstalled() ? 'wrk -t1 where the requests allow it (1 µs latency buckets), else autocannon (10 µs buckets)' : 'autocannon (wrk is not installed; 10 µs latency buckets)'}; ` +
      `server CPU = user + system time of the server process (all threads, /proc/<pid>/stat) per answered request, median over rounds; ` +
      `${serversLine}.`,
  );
  lines.push('');
  lines.push(
    '| scenario | what | tool | req/s (median) | req/s per round | server CPU µs/req (median) | per round | p50 ms | p99 ms | non-2xx | commits/s (SQLite; PostgreSQL for *-pg) | writes per commit |',
  );
  lines.push('|---|---|---|---:|---|---:|---|---:|---:|---:|---:|---:|');
  for (const s of scenarios) {
    const rs = byScenario(rounds, s.name);
    const commits = rs.map((r) => r.serverDelta.commits).filter((c): c is number => c !== undefined);
    const commitsPerSec = commits.length ? median(rs.map((r) => (r.serverDelta.commits ?? 0) / config.seconds)) : NaN;
    const totalCommits = rs.reduce((a, r) => a + (r.serverDelta.commits ?? 0), 0);
    const totalWrites = rs.reduce((a, r) => a + (r.serverDelta.writes ?? 0), 0);
    lines.push(
      `| ${s.name} | ${s.description} | ${[...new Set(rs.map((r) => r.tool))].join(', ')} | ${fmtInt(median(rs.map((r) => r.reqPerSec)))} | ` +
        `${rs.map((r) => fmtInt(r.reqPerSec)).join(' / ')} | ${fmtInt(median(rs.map((r) => r.cpuUsPerReq)))} | ` +
        `${rs.map((r) => fmtInt(r.cpuUsPerReq)).join(' / ')} | ${fmtMs(median(rs.map((r) => r.p50Ms)))} | ` +
        `${fmtMs(median(rs.map((r) => r.p99Ms)))} | ${rs.reduce((a, r) => a + r.non2xx, 0)} | ` +
        `${commits.length ? fmtInt(commitsPerSec) : '–'} | ` +
        `${commits.length && totalCommits > 0 ? (totalWrites / totalCommits).toFixed(1) : '–'} |`,
    );
  }
  lines.push('');
  lines.push('Targets:');
  lines.push('');
  const names = new Set(scenarios.map((s) => s.name));
  for (const t of TARGETS) {
    if (!t.needs.every((n) => names.has(n))) continue;
    const { value, met } = t.evaluate(rounds, config.seconds);
    lines.push(`- ${t.label}: **${value}**${met === undefined ? '' : ` — ${met ? 'met' : 'NOT met'}`}`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const config = parseConfig();
  const scenarios = config.only ? SCENARIOS.filter((s) => config.only!.includes(s.name)) : [...SCENARIOS];
  if (config.only) {
    const unknown = config.only.filter((n) => !ONE_OFF_NAMES.includes(n) && !SCENARIOS.some((s) => s.name === n));
    if (unknown.length) {
      throw new Error(`unknown scenario(s) ${unknown.join(', ')}; have ${[...SCENARIOS.map((s) => s.name), ...ONE_OFF_NAMES].join(', ')}`);
    }
  }
  // Targets that compare scenarios (kv-read vs bare) need the tokens of the secrets
  // server, so the secrets server always starts first.
  const kinds = new Set<ServerKind>(['secrets', ...scenarios.map((s) => s.server)]);
  const servers: Partial<Record<ServerKind, BenchServer>> = {};
  const serversLine = configureServers(config.env);
  log(serversLine);
  servers.secrets = await startServer('secrets');
  log(`secrets service (pid ${servers.secrets.pid}) at ${servers.secrets.url}`);
  if (kinds.has('bare')) {
    // Pad the bare reply to the size of a KV v2 read reply (same response size class).
    const probe = await fetch(`${servers.secrets.url}/v1/secret/data/bench/size-probe`, {
      method: 'POST',
      headers: { 'X-Secrets-Token': servers.secrets.token!, 'content-type': 'application/json' },
      body: JSON.stringify({ data: secretData(0) }),
    });
    await probe.text();
    const read = await fetch(`${servers.secrets.url}/v1/secret/data/bench/size-probe`, {
      headers: { 'X-Secrets-Token': servers.secrets.token! },
    });
    const bytes = (await read.text()).length;
    servers.bare = await startServer('bare', { bytes });
    log(`bare node:http (pid ${servers.bare.pid}) at ${servers.bare.url}, ${bytes}-byte replies`);
  }
  if (kinds.has('bare-aes')) {
    servers['bare-aes'] = await startServer('bare-aes');
    log(`bare node:http AES-256-GCM encrypt (pid ${servers['bare-aes'].pid}) at ${servers['bare-aes'].url}`);
  }
  if (kinds.has('secrets-audit')) {
    servers['secrets-audit'] = await startServer('secrets-audit');
    log(`secrets service with one file audit device (pid ${servers['secrets-audit'].pid}) at ${servers['secrets-audit'].url}`);
  }
  if (kinds.has('secrets-pg')) {
    servers['secrets-pg'] = await startServer('secrets-pg');
    log(`secrets service on PostgreSQL (pid ${servers['secrets-pg'].pid}) at ${servers['secrets-pg'].url}`);
  }
  if (kinds.has('gateway')) {
    servers.gateway = await startServer('gateway');
    log(`gateway controller + worker (pid ${servers.gateway.pid}), ops at ${servers.gateway.url}`);
  }
  if (kinds.has('sched')) {
    servers.sched = await startServer('sched');
    log(`scheduler agent (pid ${servers.sched.pid}, ACLs on) at ${servers.sched.url}`);
  }
  if (kinds.has('mesh')) {
    servers.mesh = await startServer('mesh');
    log(`discovery agent (pid ${servers.mesh.pid}, ACLs on, default deny) at ${servers.mesh.url}`);
  }
  const ctx: BenchContext = { servers: servers as Record<ServerKind, BenchServer>, config };

  for (const s of scenarios) {
    if (s.setup) {
      log(`setup ${s.name}`);
      await s.setup(ctx);
    }
    if (s.check) await s.check(ctx);
  }
  if (config.warmupSeconds > 0) {
    for (const s of scenarios) await measure(s, ctx, config.warmupSeconds, 0);
  }
  const rounds: RoundResult[] = [];
  for (let r = 1; r <= config.rounds; r++) {
    for (let k = 0; k < scenarios.length; k++) {
      const s = scenarios[(k + r - 1) % scenarios.length];
      rounds.push(await measure(s, ctx, config.seconds, r));
    }
  }
  const final = servers.secrets ? await servers.secrets.stats() : undefined;
  if (final && final.failedCommits > 0) throw new Error(`SQLite backend: ${final.failedCommits} failed commits`);
  const finalPg = servers['secrets-pg'] ? await servers['secrets-pg'].stats() : undefined;
  if (finalPg && finalPg.failedCommits > 0) throw new Error(`PostgreSQL backend: ${finalPg.failedCommits} failed commits`);
  await Promise.all(Object.values(servers).map((s) => s.close()));

  const text = report(scenarios, rounds, config, serversLine);
  console.log(text);
  for (const o of ONE_OFFS) if (!config.only || config.only.includes(o.name)) await o.run(config);
  if (final) {
    console.log('');
    console.log(
      `SQLite backend totals of the secrets service for the run (incl. setup and warm-up): ${fmtInt(final.commits)} commits, ` +
        `${fmtInt(final.writes)} acknowledged writes, ${fmtInt(final.rows)} rows, ${fmtInt(final.failedCommits)} failed commits.`,
    );
  }
  if (finalPg) {
    console.log(
      `PostgreSQL backend totals of the secrets-pg service for the run (incl. setup and warm-up): ${fmtInt(finalPg.commits)} commits, ` +
        `${fmtInt(finalPg.writes)} acknowledged writes, ${fmtInt(finalPg.rows)} rows, ${fmtInt(finalPg.failedCommits)} failed commits, ` +
        `${fmtInt(finalPg.connectionErrors)} connection errors, ${fmtInt(finalPg.retries)} retries.`,
    );
  }
  if (config.json) {
    writeFileSync(config.json, JSON.stringify({ config, rounds, sqliteTotals: final, postgresTotals: finalPg }, null, 2) + '\n');
    log(`wrote ${config.json}`);
  }
  if (config.strict) {
    const names = new Set(scenarios.map((s) => s.name));
    const missed = TARGETS.filter((t) => t.needs.every((n) => names.has(n)) && t.evaluate(rounds, config.seconds).met === false);
    if (missed.length) {
      log(`--strict: ${missed.length} target(s) missed`);
      return 1;
    }
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
