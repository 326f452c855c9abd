/**
 * The one-off measurements of `npm run bench` (run after the interleaved rounds, each
 * selectable with `--only`): what each runs and the report lines it prints. The
 * measurements themselves live beside their scenarios (gateway.ts, mesh.ts, sched.ts,
 * sched-volumes.ts); this file only drives them and words their results.
 */
import { measureGatewaySessions } from './gateway-sessions.js';
import { median, percentile, type BenchConfig } from './harness.js';
import { measureCrossServerEventStream, measureCrossServerWakeup, measureSecretsFailover } from './ha.js';
import { measureControllerRestart } from './gateway.js';
import { measureReplicationLag } from './mesh.js';
import { measureDnsQueries } from './mesh-dns.js';
import { measureBlockingWake } from './mesh-health.js';
import { measureEventFanout } from './sched.js';
import { measurePlacement } from './sched-placement.js';
import { measureClientRun } from './sched-client-run.js';
import { measureReconcile, type PassFigures } from './sched-reconcile.js';
import { measureServiceRegistration } from './sched-services.js';
import { describePkiIssue, measurePkiIssue } from './secrets-pki.js';
import { measureTokenRevokePrefix } from './secrets-token-revoke.js';
import { measureWriteGrowth } from './secrets-write-growth.js';
import { measureVolumeList, measureVolumeRegister, VOLUME_LIST_FILTER } from './sched-volumes.js';
import { measureTemplateIdle } from './template-idle.js';
import { measureTemplateRerender } from './template-rerender.js';

/** Formats a count: `12,345`, `–` when not finite. */
export const fmtInt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
/** Formats milliseconds with two decimals, `–` when not finite. */
export const fmtMs = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
/** Writes a progress line to stderr. */
export const log = (msg: string): void => console.error(`bench: ${msg}`);

/** One one-off measurement: its `--only` name and what it runs (printing its report lines to stdout). */
export interface OneOff {
  readonly name: string;
  run(config: BenchConfig): Promise<void>;
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;

/** The template one-offs' process settings (bench/template-cluster.ts). */
function templateSettings(config: BenchConfig): { clientNodeOptions?: string; meshMaxConnsPerClient?: number } {
  const max = config.env.BENCH_TPL_MESH_MAX_CONNS;
  return { clientNodeOptions: config.env.BENCH_TPL_CLIENT_NODE_OPTIONS, ...(max && { meshMaxConnsPerClient: Number(max) }) };
}

/** Every one-off, in the order they run. */
export const ONE_OFFS: readonly OneOff[] = [
  {
    name: 'secrets-pki-issue',
    async run(config) {
      log(`secrets-pki-issue: ${config.rounds} rounds of ${config.seconds} s, Cairn and a bare node:http server issuing EC P-256 certificates`);
      const f = await measurePkiIssue(config);
      console.log('');
      console.log(describePkiIssue(f, fmtInt));
    },
  },
  {
    name: 'gateway-sessions',
    async run(config) {
      const concurrency = 16;
      log(`gateway-sessions: ${config.seconds} s of authorize-session (${concurrency} in flight), 500 connection set-ups, 256 MiB echoed each way`);
      const f = await measureGatewaySessions({ seconds: config.seconds, concurrency, setups: 500, mib: 256 });
      console.log('');
      console.log(
        `- gateway sessions (controller + worker in one process, SQLite state, echo target in the same process): ` +
          `**${fmtInt(f.authorizePerSecond)} authorize-session/s** (${concurrency} in flight, recovery token); ` +
          `connection set-up through the worker (dial → token → controller check → target dialled → first echoed byte) ` +
          `**p50 ${fmtMs(percentile(f.setupMs.proxied, 50))} ms, p99 ${fmtMs(percentile(f.setupMs.proxied, 99))} ms** ` +
          `(direct to the echo server: p50 ${fmtMs(percentile(f.setupMs.direct, 50))} ms, p99 ${fmtMs(percentile(f.setupMs.direct, 99))} ms); ` +
          `one connection echoing 256 MiB: **${fmtInt(f.throughputMiBs.proxied)} MiB/s proxied** vs ${fmtInt(f.throughputMiBs.direct)} MiB/s direct`,
      );
    },
  },
  {
    name: 'gateway-restart',
    async run(config) {
      const n = Math.max(5, config.rounds);
      log(`gateway-restart: ${n} controller restarts`);
      const samples = await measureControllerRestart(n);
      const spawn = samples.map((x) => x.fromSpawnMs);
      const listening = samples.map((x) => x.fromListeningMs);
      console.log('');
      console.log(
        `- controller restart → worker upstream READY (${n} restarts; worker: 2 s status interval, 0.2–1 s reconnect backoff): ` +
          `**median ${fmtMs(median(listening))} ms from the new controller listening** (each: ${listening.map(fmtMs).join(', ')}); ` +
          `median ${fmtMs(median(spawn))} ms from spawning its process (each: ${spawn.map(fmtMs).join(', ')})`,
      );
    },
  },
  {
    name: 'mesh-replication-lag',
    async run(config) {
      const n = Math.max(3, config.rounds);
      log(`mesh-replication-lag: ${n} × 1,000 policies written to the primary`);
      const samples = await measureReplicationLag(n);
      const lag = samples.map((x) => x.lagMs);
      const writes = samples.map((x) => x.writeMs);
      console.log('');
      console.log(
        `- discovery ACL replication lag, 1,000 policies (primary and secondary in own processes, 4 concurrent writers, ` +
          `default replication settings, secondary polled every 5 ms): **median ${fmtMs(median(lag))} ms from the last ` +
          `write's acknowledgement to ReplicatedIndex ≥ the primary's policies index and the last policy served in dc2** ` +
          `(each: ${lag.map(fmtMs).join(', ')}); the 1,000 writes took ${writes.map(fmtMs).join(', ')} ms ` +
          `(${writes.map((w) => fmtInt(1000 / (w / 1000))).join(', ')} policies/s)`,
      );
    },
  },
  {
    name: 'mesh-dns',
    async run(config) {
      // BENCH_DNS: CONCURRENCYxINSTANCES (queries in flight on one UDP socket, healthy instances of the service).
      const [concurrency, instances] = (config.env.BENCH_DNS ?? '32x10').split('x').map(Number) as [number, number];
      log(`mesh-dns: ${concurrency} UDP queries in flight, ${instances} instances, ${config.seconds} s per case`);
      const cases = await measureDnsQueries({ seconds: config.seconds, concurrency, instances });
      console.log('');
      console.log(
        `- discovery DNS queries (agent in its own process, SQLite, ACLs on with the management token as acl.tokens.dns; the bench process keeps ` +
          `${concurrency} UDP queries in flight on one socket, ${config.seconds} s per case after 1 s of warm-up):`,
      );
      for (const c of cases) {
        console.log(
          `  - ${c.qname} ${c.name} (${c.answers} answers per reply): **${fmtInt(c.perSec)} queries/s**, p50 ${fmtMs(c.p50Ms)} ms, p99 ${fmtMs(c.p99Ms)} ms, ${c.lost} lost`,
        );
      }
    },
  },
  {
    name: 'sched-event-fanout',
    async run(config) {
      // BENCH_FANOUT: runs as SUBSCRIBERSxEVENTS_PER_SEC[xBATCH[xBUFFER]], comma-separated.
      const runs = (config.env.BENCH_FANOUT ?? '100x10000x10x100,100x10000x10x1000,100x4000x10x100,100x1000x10x100').split(',').map((r) => {
        const [subscribers, eventsPerSec, batch, buffer] = r.split('x').map(Number);
        const reader = config.env.BENCH_FANOUT_READER === 'node' ? ('node' as const) : ('curl' as const);
        return { subscribers, eventsPerSec, seconds: 30, batch: batch || 10, eventBufferSize: buffer || 100, reader };
      });
      console.log('');
      console.log('- scheduler event fan-out (subscribers on topic Node, node updates of ~780 bytes per event written in the server process):');
      for (const settings of runs) {
        log(
          `sched-event-fanout: ${settings.subscribers} subscribers, ${fmtInt(settings.eventsPerSec)} events/s (${settings.batch} per batch) for ${settings.seconds} s`,
        );
        const f = await measureEventFanout(settings);
        console.log(
          `  - ${settings.subscribers} subscribers (${f.reader === 'curl' ? `${settings.subscribers - Math.min(2, settings.subscribers)} curl processes + ` : ''}${f.reader === 'curl' ? Math.min(2, settings.subscribers) : settings.subscribers} node:http readers) × ${fmtInt(settings.eventsPerSec)} events/s (${settings.batch} per batch, event_buffer_size ${settings.eventBufferSize}): published ${fmtInt(f.published.events / (f.published.elapsedMs / 1000))} events/s, ` +
            `delivered **${fmtInt(f.deliveredPerSec)} events/s** in all (per subscriber ${fmtInt(f.perSubscriber.min)}–${fmtInt(f.perSubscriber.max)} events in ${fmtMs(f.published.elapsedMs / 1000)} s), ` +
            `publish-to-deliver p50 ${fmtMs(f.p50Ms)} ms, **p99 ${fmtMs(f.p99Ms)} ms**; server RSS ${mib(f.rss.before)} → **peak ${mib(f.rss.peak)}** → ${mib(f.rss.after)}, ` +
            `V8 heap peak ${mib(f.heapPeak)}; ${f.cut} of ${settings.subscribers} subscribers cut as too slow${f.cut ? ` (${f.cutReason.slice(0, 60)}…)` : ''}; ` +
            `${f.subscriptionsLeft} subscriptions left after the clients hung up`,
        );
      }
    },
  },
  {
    name: 'sched-volume-list',
    async run(config) {
      const volumes = Number(config.env.BENCH_VOLUMES ?? 100_000);
      const requests = Number(config.env.BENCH_VOLUME_LIST_REQUESTS ?? 200);
      log(`sched-volume-list: seeding ${fmtInt(volumes)} volumes, then ${requests} requests per case`);
      const l = await measureVolumeList({ volumes, requests, warmup: 20, perPage: 100, deepFraction: 0.9, seedBatch: 1000 });
      console.log('');
      console.log(
        `- scheduler volume list over ${fmtInt(l.seeded.volumes)} volumes (seeded in ${fmtInt(l.seeded.batches)} transactions, ${fmtMs(l.seeded.elapsedMs / 1000)} s; ` +
          `server RSS ${(l.rss / 1024 / 1024).toFixed(0)} MiB, heap ${(l.heapUsed / 1024 / 1024).toFixed(0)} MiB), \`GET /v1/volumes?type=csi&per_page=100\`, ` +
          `one connection, ${requests} sequential requests per case, interleaved; filter \`${VOLUME_LIST_FILTER}\` (a quarter of the volumes):`,
      );
      for (const c of l.cases) {
        console.log(
          `  - ${c.name}: **p50 ${fmtMs(c.p50Ms)} ms, p99 ${fmtMs(c.p99Ms)} ms** (mean ${fmtMs(c.meanMs)}, max ${fmtMs(c.maxMs)}; ${fmtInt(c.bytes)}-byte replies)`,
        );
      }
    },
  },
  {
    name: 'mesh-blocking-wake',
    async run(config) {
      // Issue 30 measures 100, 1,000 and 5,000 watchers; BENCH_WAKE_QUERIES picks (default 1,000).
      const counts = (config.env.BENCH_WAKE_QUERIES ?? '1000').split(',').map(Number);
      for (const queries of counts) {
        log(`mesh-blocking-wake: ${config.rounds} rounds × ${fmtInt(queries)} blocking health/service queries woken by a TTL check failing`);
        const rounds = await measureBlockingWake(config.rounds, queries);
        const all = rounds.flatMap((r) => r.wakeMs);
        console.log('');
        console.log(
          `- discovery blocking-query wake-up (own agent process, ACLs on; ${fmtInt(queries)} blocking \`GET /v1/health/service/bench-wake?index=N&wait=60s\` held open, ` +
            `each on its own connection, then \`PUT /v1/agent/check/fail/service:bench-wake\` (TTL check passing → critical); ${config.rounds} rounds): ` +
            `from that call's acknowledgement to each reply **p50 ${fmtMs(percentile(all, 50))} ms, p99 ${fmtMs(percentile(all, 99))} ms** over all rounds ` +
            `(per round p50/p99/max: ${rounds.map((r) => `${fmtMs(percentile(r.wakeMs, 50))}/${fmtMs(percentile(r.wakeMs, 99))}/${fmtMs(r.wakeMs[r.wakeMs.length - 1] ?? NaN)}`).join(', ')}); ` +
            `server CPU from the change to the last reply ${rounds.map((r) => fmtMs(r.cpuMs)).join(' / ')} ms per round ` +
            `(${rounds.map((r) => fmtInt((r.cpuMs * 1000) / r.wakeMs.length)).join(' / ')} µs per woken query)`,
        );
      }
    },
  },
  {
    name: 'sched-volume-register',
    async run(config) {
      log(`sched-volume-register: ${config.rounds} rounds × ${config.seconds} s, ${config.connections} connections`);
      const r = await measureVolumeRegister({
        rounds: config.rounds,
        seconds: config.seconds,
        warmupSeconds: config.warmupSeconds,
        connections: config.connections,
        pluginVolumes: 1000,
      });
      console.log('');
      console.log(
        `- scheduler volume register (\`PUT /v1/volume/csi/<new id>\` of volumes made in the hostpath plugin beforehand, ValidateVolumeCapabilities over its unix socket, ` +
          `one durable write each; ${config.connections} connections, ${config.rounds} rounds × ${config.seconds} s): **${fmtInt(r.medianReqPerSec)} registers/s** ` +
          `(per round: ${r.rounds.map((x) => fmtInt(x.reqPerSec)).join(' / ')}), p50 ${fmtMs(median(r.rounds.map((x) => x.p50Ms)))} ms, ` +
          `p99 ${fmtMs(median(r.rounds.map((x) => x.p99Ms)))} ms; ${fmtInt(r.registered)} volumes registered in all`,
      );
    },
  },
  {
    name: 'sched-placement',
    async run() {
      log('sched-placement: 50 stand-in nodes, one job of 1,000 allocations, then 200 one-allocation jobs 20 at a time');
      const r = await measurePlacement({ nodes: 50, allocations: 1000, evals: 200, concurrency: 20 });
      console.log('');
      console.log(
        `- scheduler placement (own process, SQLite, ACLs on; ${r.nodes} stand-in nodes that only register and heartbeat; jobs registered ` +
          `with POST /v1/jobs): a service job of ${fmtInt(r.allocations)} allocations placed in ${fmtMs(r.placeMs)} ms, **${fmtInt(r.placementsPerSec)} placements/s** ` +
          `(evaluation created → complete, the plan's one commit included); evaluation latency over ${r.evals} one-allocation jobs registered 20 at a time: ` +
          `**p50 ${fmtMs(r.evalP50Ms)} ms, p99 ${fmtMs(r.evalP99Ms)} ms** (created → complete, broker wait included)`,
      );
    },
  },
  {
    name: 'sched-client-run',
    async run() {
      const tasks = 100;
      const rounds = 3;
      log(`sched-client-run: a server and a client-only agent (processes); ${rounds} × a job of ${tasks} raw_exec tasks, register → all running`);
      const r = await measureClientRun({ tasks, rounds });
      const running = r.map((x) => x.runningMs);
      console.log('');
      console.log(
        `- scheduler register → running on a real client (server and client-only agent as processes, SQLite, ACLs off): a service job of ${tasks} raw_exec tasks ` +
          `(\`/bin/sleep\`) from \`POST /v1/jobs\` to every allocation \`running\`: **median ${fmtMs(median(running))} ms** of ${rounds} ` +
          `(each: ${running.map(fmtMs).join(', ')}; all placed after ${r.map((x) => fmtMs(x.placedMs)).join(', ')} ms)`,
      );
    },
  },
  {
    name: 'sched-service-register',
    async run(config) {
      const instances = Number(config.env.BENCH_SVC_INSTANCES ?? 100);
      const rounds = 3;
      const steadySeconds = 10;
      log(
        `sched-service-register: discovery agent, scheduler server and client (processes); ${rounds} × a job of ${instances} HTTP services with checks, register → all passing`,
      );
      const r = await measureServiceRegistration({ instances, rounds, steadySeconds });
      const passing = r.rounds.map((x) => x.passingMs);
      const perInstance = (f: (c: (typeof r.rounds)[number]['cpu']) => number) => r.rounds.map((x) => fmtMs((f(x.cpu) * 1000) / instances)).join(' / ');
      const core = (s: number) => `${(s * 100).toFixed(1)} %`;
      console.log('');
      console.log(
        `- register → ${instances} instances passing on one client (discovery agent, scheduler server and client-only agent as processes, SQLite, ACLs off; ` +
          `a group of count ${instances} with a dynamic port, a \`raw_exec\` task \`${r.python} -S\` answering HTTP on it, a task service with an HTTP check every 1 s): ` +
          `from \`POST /v1/jobs\` to ${instances} passing in \`/v1/health/service/<name>?passing\`: **median ${fmtMs(median(passing))} ms** of ${rounds} ` +
          `(each: ${passing.map(fmtMs).join(', ')}; the first registered after ${r.rounds.map((x) => fmtMs(x.firstRegisteredMs)).join(', ')} ms, ` +
          `all ${instances} after ${r.rounds.map((x) => fmtMs(x.registeredMs)).join(', ')} ms; ` +
          `the first passing after ${r.rounds.map((x) => fmtMs(x.firstPassingMs)).join(', ')} ms)`,
      );
      console.log(
        `  - CPU per instance over that time (ms, per round): **discovery agent ${perInstance((c) => c.mesh)}**, scheduler server ${perInstance((c) => c.server)}, ` +
          `scheduler client ${perInstance((c) => c.client)} (server and client: placement and task start included)`,
      );
      console.log(
        `  - ${steadySeconds} s with the ${instances} instances registered and passing (liveness TTL passes every 0.5 s, HTTP checks every 1 s): ` +
          `discovery agent ${core(r.steady.mesh)} of a core, scheduler client ${core(r.steady.client)}, scheduler server ${core(r.steady.server)}`,
      );
    },
  },
  {
    name: 'sched-service-reconcile',
    async run(config) {
      const registrations = Number(config.env.BENCH_SVC_RECONCILE ?? 1000);
      const inSyncPasses = 20;
      const writePasses = 1;
      log(`sched-service-reconcile: ${fmtInt(registrations)} registrations in a discovery agent (process), the client's reconcile in this process`);
      const r = await measureReconcile({ registrations, inSyncPasses, writePasses });
      const line = (label: string, f: PassFigures) =>
        `  - ${label}: **median ${fmtMs(median(f.wallMs))} ms** (of ${f.wallMs.length}; max ${fmtMs(Math.max(...f.wallMs))}), client CPU median ` +
        `${fmtMs(median(f.clientCpuMs))} ms, discovery agent CPU ${fmtMs(f.agentCpuMsPerPass)} ms per pass`;
      console.log('');
      console.log(
        `- one reconcile pass of a scheduler client holding ${fmtInt(registrations)} registrations (the client's ServiceRegistrar in the bench process, ` +
          `loops off; a discovery agent process, SQLite, ACLs off; registering them took ${fmtMs(r.registerMs)} ms, 8 at a time):`,
      );
      console.log(line(`in sync, the periodic case (list ${fmtInt(registrations)}, compare, no write)`, r.inSync));
      console.log(line(`the agent lost them all (${fmtInt(registrations)} registered again, 8 at a time)`, r.reRegister));
      console.log(line(`a restarted client that runs none of them (${fmtInt(registrations)} deregistered, one at a time)`, r.removeStale));
    },
  },
  {
    name: 'template-rerender',
    async run(config) {
      const allocations = Number(config.env.BENCH_TPL_ALLOCS ?? 100);
      const rounds = Number(config.env.BENCH_TPL_ROUNDS ?? 10);
      log(`template-rerender: discovery agent, scheduler server and client (processes); ${allocations} allocations watching one key, ${rounds} changes`);
      const r = await measureTemplateRerender({ allocations, rounds, ...templateSettings(config) });
      console.log('');
      console.log(
        `- discovery KV change → ${r.allocations} templates re-rendered on one client (discovery agent, scheduler server and client-only agent as processes, ` +
          `SQLite, ACLs off; a job of ${r.allocations} allocations, each a \`raw_exec\` \`/bin/sleep\` task with one template \`{{ key "…" }}\` → \`local/v.txt\`, ` +
          `\`change_mode = "noop"\`, \`splay = "0s"\`, \`wait\` 0/0 in the template and the client): from the \`PUT /v1/kv/<key>\` reply to each file holding the ` +
          `new value (files polled every 15 ms), ${rounds} changes after one unmeasured: **p50 ${fmtMs(r.p50Ms)} ms, p99 ${fmtMs(r.p99Ms)} ms** per allocation; ` +
          `all ${r.allocations} after median ${fmtMs(median(r.allMs))} ms (each: ${r.allMs.map(fmtMs).join(', ')})`,
      );
    },
  },
  {
    name: 'template-idle-cpu',
    async run(config) {
      const allocations = Number(config.env.BENCH_TPL_ALLOCS ?? 100);
      const seconds = Number(config.env.BENCH_TPL_IDLE_SECONDS ?? 45);
      log(
        `template-idle-cpu: ${allocations} allocations without templates, watching one key, watching ${allocations} keys, without again; ${seconds} s at rest each`,
      );
      const r = await measureTemplateIdle({ allocations, seconds, ...templateSettings(config) });
      const of = (name: string) => median(r.cases.filter((c) => c.name === name).map((c) => c.cpuMsPerMin));
      const perTemplate = (name: string) => fmtMs((of(name) - of('none')) / r.allocations);
      console.log('');
      console.log(
        `- client CPU per watched template at rest (the processes of template-rerender; ${r.allocations} allocations, ${r.seconds} s at rest per case after ` +
          `all rendered + 5 s; client agent user + system CPU, /proc, 10 ms ticks; block_query_wait 5m): ` +
          `**${perTemplate('shared')} ms per template per minute watching one shared key, ${perTemplate('distinct')} ms watching ${r.allocations} different keys** ` +
          `(client CPU per minute: no templates ${r.cases
            .filter((c) => c.name === 'none')
            .map((c) => fmtMs(c.cpuMsPerMin))
            .join(' (first) and ')} ms (last), one shared key ${fmtMs(of('shared'))} ms, ${r.allocations} keys ${fmtMs(of('distinct'))} ms)`,
      );
    },
  },
  {
    name: 'secrets-write-growth',
    async run(config) {
      log('secrets-write-growth: KV v2 writes of new keys measured at each checkpoint of keys stored (BENCH_GROWTH_KEYS)');
      const { server, points } = await measureWriteGrowth(config);
      console.log('');
      console.log(
        `- KV v2 writes of new keys as the store grows (${server}, fsync'd, wrk 32 connections, ${config.seconds} s windows): ` +
          points
            .map(
              (p) =>
                `at ${fmtInt(p.keys)} keys **${fmtInt(p.writesPerSecond)}/s**, ${fmtInt(p.cpuUsPerWrite)} µs server CPU per write, p99 ${fmtMs(p.p99Ms)} ms, RSS ${mib(p.rssBytes)}`,
            )
            .join('; '),
      );
    },
  },
  {
    name: 'secrets-token-revoke',
    async run(config) {
      log('secrets-token-revoke: AppRole logins, then revoke-prefix of their token leases under KV writes');
      const f = await measureTokenRevokePrefix(config);
      console.log('');
      console.log(
        `- revoke-prefix of an auth method's tokens (tokens are leases; secrets server on SQLite, ${fmtInt(f.tokens)} AppRole tokens made at ` +
          `${fmtInt(f.loginsPerSecond)} logins/s, 32 in flight): \`PUT sys/leases/revoke-prefix/auth/approle/\` took **${f.revokeSeconds.toFixed(1)} s** ` +
          `(${fmtInt(f.tokens / f.revokeSeconds)} tokens/s; server CPU ${f.revokeCpuSeconds.toFixed(1)} s, the concurrent writes included); ` +
          `${fmtInt(f.writesAcknowledged)} KV v2 writes acknowledged meanwhile by 16 writers, **${f.writesLost} lost**; ${f.leftOver} token leases left`,
      );
    },
  },
  {
    name: 'secrets-failover',
    async run(config) {
      const n = 10;
      log(`secrets-failover: ${n} × kill -9 of the active secrets server`);
      const ms = (await measureSecretsFailover(n, config.env)).map((x) => x.ms);
      console.log('');
      console.log(
        `- secrets service failover on PostgreSQL (two server processes, \`ha_enabled\`, production settings (standbys wait in the lock), durable throwaway cluster; ` +
          `\`kill -9\` of the active server at a random moment → the standby answers \`sys/health\` 200, polled every 25 ms): **median ${fmtMs(median(ms))} ms** of ${n} kills ` +
          `(each: ${ms.map(fmtMs).join(', ')}; max ${fmtMs(Math.max(...ms))} ms)`,
      );
    },
  },
  {
    name: 'cross-server-wakeup',
    async run(config) {
      const n = 300;
      log(`cross-server-wakeup: ${n} blocking queries on a follower woken by writes on the leader`);
      const samples = await measureCrossServerWakeup(n, config.env);
      const wake = samples.map((x) => x.wakeMs);
      const write = samples.map((x) => x.writeMs);
      console.log('');
      console.log(
        `- cross-server wake-up (two discovery agent processes on one durable PostgreSQL table; a blocking \`GET /v1/acl/policies?index=N\` on the follower, ` +
          `a policy written through the leader; ${n} samples): from sending the write to the follower's reply **p50 ${fmtMs(percentile(wake, 50))} ms, ` +
          `p99 ${fmtMs(percentile(wake, 99))} ms** (max ${fmtMs(Math.max(...wake))}); the write's own acknowledgement p50 ${fmtMs(percentile(write, 50))} ms, ` +
          `p99 ${fmtMs(percentile(write, 99))} ms`,
      );
    },
  },
  {
    name: 'cross-server-stream',
    async run(config) {
      const n = 300;
      log(`cross-server-stream: ${n} events on a follower's stream for writes on the leader`);
      const samples = await measureCrossServerEventStream(n, config.env);
      const wake = samples.map((x) => x.wakeMs);
      const write = samples.map((x) => x.writeMs);
      console.log('');
      console.log(
        `- cross-server event stream (two scheduler agent processes on one durable PostgreSQL table; \`GET /v1/event/stream?topic=ACLPolicy\` open on the ` +
          `follower, policies written through the leader one at a time; ${n} samples): from sending the write to the event arriving on the follower's stream ` +
          `**p50 ${fmtMs(percentile(wake, 50))} ms, p99 ${fmtMs(percentile(wake, 99))} ms** (max ${fmtMs(Math.max(...wake))}); the write's own acknowledgement ` +
          `p50 ${fmtMs(percentile(write, 50))} ms, p99 ${fmtMs(percentile(write, 99))} ms`,
      );
    },
  },
];
