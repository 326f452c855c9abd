/**
 * The issues' targets `npm run bench` evaluates on the interleaved rounds (bench/run.ts
 * prints them and fails `--strict` on a missed one): each names the scenarios it needs and
 * words its figure, with or without a threshold.
 */
import { median, type RoundResult } from './harness.js';
import { fmtInt, fmtMs } from './oneoffs.js';

/** A ratio as a whole percentage, `–` when not finite. */
const pct = (n: number): string => (Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : '–');

/**
 * A target from the issue, evaluated on the per-round results. `met: undefined` marks a
 * figure the issue asks to report without a threshold (printed, never fails --strict).
 */
export interface Target {
  readonly label: string;
  /** Scenarios it needs; skipped when one was filtered out. */
  readonly needs: readonly string[];
  /** `seconds`: the measured length of one scenario's round (for per-second counters). */
  evaluate(rounds: readonly RoundResult[], seconds?: number): { value: string; met: boolean | undefined };
}

export const byScenario = (rounds: readonly RoundResult[], name: string): RoundResult[] => rounds.filter((r) => r.scenario === name);

/**
 * req/s of `num` over req/s of `den`, as the median of the per-round ratios (both sides
 * of a ratio ran in the same interleaved round), with the per-round ratios.
 */
function ratioTarget(num: string, den: string, label: string, min: number): Target {
  return {
    label,
    needs: [num, den],
    evaluate(rounds) {
      const n = byScenario(rounds, num);
      const d = byScenario(rounds, den);
      const ratios = n.map((r) => r.reqPerSec / d.find((b) => b.round === r.round)!.reqPerSec);
      const ratio = median(ratios);
      return { value: `${pct(ratio)} (per round: ${ratios.map(pct).join(', ')})`, met: ratio >= min };
    },
  };
}

/**
 * Issue 15 target 1: `num` reaches `minRatio` of bare's req/s (median of the per-round
 * ratios) and uses at most `maxCpu` × bare's server CPU per request (median of the
 * per-round CPU ratios); both per-round series are printed.
 */
function readTarget(num: string, label: string, minRatio: number, maxCpu: number): Target {
  return {
    label,
    needs: [num, 'bare'],
    evaluate(rounds) {
      const n = byScenario(rounds, num);
      const bareOf = (r: RoundResult) => rounds.find((b) => b.scenario === 'bare' && b.round === r.round)!;
      const ratios = n.map((r) => r.reqPerSec / bareOf(r).reqPerSec);
      const cpu = n.map((r) => r.cpuUsPerReq / bareOf(r).cpuUsPerReq);
      const ratio = median(ratios);
      const cpuRatio = median(cpu);
      const value =
        `${pct(ratio)} of bare's req/s (per round: ${ratios.map(pct).join(', ')}; ${n.map((r) => fmtInt(r.reqPerSec)).join(' / ')} req/s), ` +
        `${cpuRatio.toFixed(2)}× bare's server CPU per request (per round: ${cpu.map((c) => `${c.toFixed(2)}×`).join(', ')}; ` +
        `${n.map((r) => fmtInt(r.cpuUsPerReq)).join(' / ')} µs against ${n.map((r) => fmtInt(bareOf(r).cpuUsPerReq)).join(' / ')} µs)`;
      return { value, met: ratio >= minRatio && (maxCpu === Infinity || cpuRatio <= maxCpu) };
    },
  };
}

export const TARGETS: readonly Target[] = [
  readTarget('kv-read', 'KV v2 reads, root token: ≥ 50 % of bare’s req/s and ≤ 2× bare’s server CPU per request (issue 15)', 0.5, 2),
  ratioTarget('kv-read-audit', 'kv-read', 'KV v2 reads with one file audit device ≥ 70 % of the unaudited reads’ req/s (issue 17)', 0.7),
  readTarget('kv-read-policy', 'KV v2 reads, 50-rule policy token: ≥ 50 % of bare’s req/s and ≤ 2× bare’s server CPU per request (issue 15)', 0.5, 2),
  ratioTarget('kv-read-policy', 'kv-read', 'KV v2 reads with a non-root token under a 50-rule policy ≥ 90 % of the root-token reads’ req/s', 0.9),
  {
    label:
      'acknowledged KV v2 writes ≥ 10,000/s in every round, every write fsync’d (SQLite synchronous=FULL, group commit), ' +
      'and ≤ 80 µs server CPU per write, both threads (issue 15)',
    needs: ['kv-write'],
    evaluate(rounds) {
      const w = byScenario(rounds, 'kv-write');
      const cpu = median(w.map((r) => r.cpuUsPerReq));
      const min = Math.min(...w.map((r) => r.reqPerSec));
      return {
        value:
          `${w.map((r) => fmtInt(r.reqPerSec)).join(' / ')} writes/s per round (lowest ${fmtInt(min)}), ` +
          `${fmtInt(cpu)} µs server CPU per write (per round ${w.map((r) => fmtInt(r.cpuUsPerReq)).join(' / ')})`,
        met: min >= 10_000 && cpu <= 80,
      };
    },
  },
  {
    label: 'KV v2 reads on PostgreSQL relative to the same reads on SQLite, kv-read-pg / kv-read (no threshold in issue 8)',
    needs: ['kv-read-pg', 'kv-read'],
    evaluate(rounds) {
      const reads = byScenario(rounds, 'kv-read-pg');
      return {
        value: `${fmtInt(median(reads.map((r) => r.reqPerSec)))} req/s, ${ratioTarget('kv-read-pg', 'kv-read', '', 0).evaluate(rounds).value}`,
        met: undefined,
      };
    },
  },
  {
    label:
      'acknowledged KV v2 writes on PostgreSQL (fsync on, synchronous_commit on, group commit) relative to SQLite, ' +
      'kv-write-pg / kv-write (no threshold in issue 8)',
    needs: ['kv-write-pg', 'kv-write'],
    evaluate(rounds, seconds) {
      const w = byScenario(rounds, 'kv-write-pg');
      const commits = w.map((r) => r.serverDelta.commits).filter((c): c is number => c !== undefined);
      const writes = w.reduce((a, r) => a + (r.serverDelta.writes ?? 0), 0);
      const totalCommits = commits.reduce((a, c) => a + c, 0);
      return {
        value:
          `${fmtInt(median(w.map((r) => r.reqPerSec)))} writes/s, ${ratioTarget('kv-write-pg', 'kv-write', '', 0).evaluate(rounds).value}` +
          (commits.length
            ? `; PostgreSQL ${fmtInt(median(commits.map((c) => c / (seconds ?? NaN))))} commits/s, ` +
              `${totalCommits > 0 ? (writes / totalCommits).toFixed(1) : '–'} writes per commit`
            : ''),
        met: undefined,
      };
    },
  },
  {
    label: 'gateway /health req/s on the ops listener relative to the bare handler (no threshold; the bare reply is larger)',
    needs: ['gateway-health', 'bare'],
    evaluate(rounds) {
      return { value: ratioTarget('gateway-health', 'bare', '', 0).evaluate(rounds).value, met: undefined };
    },
  },
  readTarget('mesh-token-read', 'discovery token reads (ACLs on, default deny, management token) ≥ 50 % of bare’s req/s (issue 15)', 0.5, Infinity),
  {
    label: 'discovery JWT logins/s (jwt method, static ES256 key; each creates a durable token; no threshold in the issue)',
    needs: ['mesh-jwt-login'],
    evaluate(rounds) {
      const l = byScenario(rounds, 'mesh-jwt-login');
      return {
        value:
          `${fmtInt(median(l.map((r) => r.reqPerSec)))} tokens/s, p50 ${fmtMs(median(l.map((r) => r.p50Ms)))} ms, ` +
          `p99 ${fmtMs(median(l.map((r) => r.p99Ms)))} ms`,
        met: undefined,
      };
    },
  },
  {
    label: 'discovery GET /v1/health/service/<svc> with 10,000 instances of the service (issue 16; no threshold)',
    needs: ['mesh-health-10k'],
    evaluate(rounds) {
      const h = byScenario(rounds, 'mesh-health-10k');
      return {
        value:
          `${median(h.map((r) => r.reqPerSec)).toFixed(1)} req/s, p50 ${fmtMs(median(h.map((r) => r.p50Ms)))} ms, ` +
          `p99 ${fmtMs(median(h.map((r) => r.p99Ms)))} ms (per round p99 ${h.map((r) => fmtMs(r.p99Ms)).join(' / ')} ms)`,
        met: undefined,
      };
    },
  },
  readTarget('sched-auth-method-read', 'scheduler auth-method reads (ACLs on, management token) ≥ 50 % of bare’s req/s (issue 15)', 0.5, Infinity),
  {
    label: 'transit encrypt of 1 KiB (aes256-gcm96, root token) beside a bare node:http server doing the same AES-256-GCM, same run (issue 28, no threshold)',
    needs: ['transit-encrypt', 'bare-aes'],
    evaluate(rounds) {
      const t = byScenario(rounds, 'transit-encrypt');
      const bareOf = (r: RoundResult) => rounds.find((b) => b.scenario === 'bare-aes' && b.round === r.round)!;
      const cpu = t.map((r) => r.cpuUsPerReq / bareOf(r).cpuUsPerReq);
      return {
        value:
          `${t.map((r) => fmtInt(r.reqPerSec)).join(' / ')} req/s per round against ${t.map((r) => fmtInt(bareOf(r).reqPerSec)).join(' / ')} (bare-aes), ` +
          `${ratioTarget('transit-encrypt', 'bare-aes', '', 0).evaluate(rounds).value} of bare-aes; server CPU per request ` +
          `${t.map((r) => fmtInt(r.cpuUsPerReq)).join(' / ')} µs against ${t.map((r) => fmtInt(bareOf(r).cpuUsPerReq)).join(' / ')} µs ` +
          `(${median(cpu).toFixed(2)}× bare-aes)`,
        met: undefined,
      };
    },
  },
  {
    label:
      'workload-identity logins/s at the secrets service (scheduler-signed vault_default, jwks_url, role cairn-workloads; issue 27, no threshold), ' +
      'beside the ES256 static-key JWT logins and bare',
    needs: ['workload-identity-login', 'secrets-jwt-login', 'bare'],
    evaluate(rounds) {
      const per = (name: string) => {
        const l = byScenario(rounds, name);
        return `${fmtInt(median(l.map((r) => r.reqPerSec)))} logins/s, ${fmtInt(median(l.map((r) => r.cpuUsPerReq)))} µs server CPU per login`;
      };
      const bare = byScenario(rounds, 'bare');
      return {
        value:
          `${per('workload-identity-login')} (secrets-jwt-login: ${per('secrets-jwt-login')}; bare ${fmtInt(median(bare.map((r) => r.reqPerSec)))} req/s, ` +
          `${fmtInt(median(bare.map((r) => r.cpuUsPerReq)))} µs; ${ratioTarget('workload-identity-login', 'secrets-jwt-login', '', 0).evaluate(rounds).value} of the static-key logins)`,
        met: undefined,
      };
    },
  },
  {
    label: 'database credentials issued/s (each a new PostgreSQL role and a leased, durable write; issue 28, no threshold)',
    needs: ['secrets-database-creds'],
    evaluate(rounds) {
      const l = byScenario(rounds, 'secrets-database-creds');
      return {
        value:
          `${fmtInt(median(l.map((r) => r.reqPerSec)))} creds/s, ${fmtInt(median(l.map((r) => r.cpuUsPerReq)))} µs server CPU per issue, ` +
          `p50 ${fmtMs(median(l.map((r) => r.p50Ms)))} ms, p99 ${fmtMs(median(l.map((r) => r.p99Ms)))} ms`,
        met: undefined,
      };
    },
  },
  {
    label: 'AppRole logins/s (each issues a token, a durable write; no threshold in the issue)',
    needs: ['approle-login'],
    evaluate(rounds) {
      const l = byScenario(rounds, 'approle-login');
      return {
        value:
          `${fmtInt(median(l.map((r) => r.reqPerSec)))} logins/s, p50 ${fmtMs(median(l.map((r) => r.p50Ms)))} ms, ` +
          `p99 ${fmtMs(median(l.map((r) => r.p99Ms)))} ms`,
        met: undefined,
      };
    },
  },
];
