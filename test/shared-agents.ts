/**
 * Discovery and scheduler agents sharing one PostgreSQL table, as real processes (issue 8
 * scope 3), for the HA suites and the benchmarks: starting one (its data directory, the
 * first agent's state key copied, the HCL with the `storage "postgresql"` block), asking
 * who leads, and `kill -9` of the leader under a write load.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCairnProcess, until, type ServerProcess } from './processes.js';

/** The environment variable the agents' `connection_url` names (`env://…`), so no password lands in a file. */
const URL_VAR = 'CAIRN_SHARED_AGENT_PG_URL';

const SERVICES = {
  // Free ports only: several agents run on one host (the discovery agent's DNS server too).
  mesh: { key: 'mesh-state.key', ready: 'discovery service listening', ports: 'http = 0\n  dns  = 0', extra: () => '' },
  sched: {
    key: 'sched-state.key',
    ready: 'scheduler service listening',
    ports: 'http = 0',
    extra: (name: string) => `name = "${name}"\nadvertise { http = "127.0.0.1" }\n`,
  },
} as const;

/** Options of {@link startSharedAgent}. */
export interface SharedAgentOptions {
  readonly service: keyof typeof SERVICES;
  /** Parent directory: the agent's data dir is `<dir>/<name>`, its config `<dir>/<name>.hcl`. */
  readonly dir: string;
  readonly name: string;
  /** `postgres://` URL of the database (with its password). */
  readonly pgUrl: string;
  readonly table: string;
  /** Name of an agent started before in `dir` whose state key this one gets (agents of one table share it). */
  readonly keyFrom?: string;
  /** More HCL (ACLs, datacenter, …). */
  readonly extra?: string;
  /** More environment variables of the process (what `env://` settings in `extra` name). */
  readonly env?: Record<string, string>;
}

/** Starts `cairn mesh agent` / `cairn sched agent` on HTTP port 0 with the shared storage; resolves once it listens. */
export function startSharedAgent(o: SharedAgentOptions): Promise<ServerProcess> {
  const s = SERVICES[o.service];
  const data = join(o.dir, o.name);
  mkdirSync(data, { recursive: true });
  if (o.keyFrom) copyFileSync(join(o.dir, o.keyFrom, s.key), join(data, s.key));
  const config = join(o.dir, `${o.name}.hcl`);
  writeFileSync(
    config,
    `data_dir = "${data}"
ports {
  ${s.ports}
}
storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${o.table}"
  max_parallel   = 4
}
${s.extra(o.name)}${o.extra ?? ''}
`,
  );
  return startCairnProcess([o.service, 'agent', `-config=${config}`], { ...o.env, [URL_VAR]: o.pgUrl }, s.ready);
}

/** `host:port` of an agent, as `status/leader` names it. */
export const hostOf = (p: ServerProcess): string => new URL(p.url).host;

/** What `GET /v1/status/leader` on `p` answers (`""` when no leader is known). */
export async function leaderOf(p: ServerProcess): Promise<string> {
  return (await (await fetch(`${p.url}/v1/status/leader`)).json()) as string;
}

/** Waits until `p` names `leader` as the leader (`what` names the wait in the failure). */
export function untilLeader(what: string, ms: number, p: ServerProcess, leader: ServerProcess): Promise<true> {
  return until(what, ms, async () => ((await leaderOf(p)) === hostOf(leader) ? true : undefined));
}

/** What {@link killLeaderUnderLoad} saw. */
export interface LeaderKill {
  /** Names of the writes acknowledged (before, during and after the kill). */
  readonly acknowledged: readonly string[];
  /** The new leader's `host:port`, named by every follower. */
  readonly leader: string;
  /** How many writes got each answer: `"200"`, `"500 No cluster leader"`, …, `"no answer: <error>"`. */
  readonly answers: Readonly<Record<string, number>>;
}

/** One write's answer, as the writer function gives it: its status and body text. */
interface WriteAnswer {
  readonly status: number;
  readonly text: string;
}

/** Options of {@link killLeaderUnderLoad}. */
export interface LeaderKillOptions {
  readonly leader: ServerProcess;
  readonly followers: readonly ServerProcess[];
  /** Makes the write named `name` through `p`; a 2xx status is an acknowledgement. */
  readonly write: (p: ServerProcess, name: string) => Promise<WriteAnswer>;
  /**
   * The answers (status, and a pattern of the body) a write may get instead of a 2xx while
   * the leader is gone: one in flight at the kill, or sent before every follower names the
   * new leader. Any other answer, or any failure before the kill or once every follower
   * names the new leader, fails the helper.
   */
  readonly failover: readonly { readonly status: number; readonly text: RegExp }[];
  /** Who `p` names as the leader, as `host:port` (`""`: none); default `GET /v1/status/leader`. */
  readonly leaderOf?: (p: ServerProcess) => Promise<string>;
}

/**
 * Runs writers through the followers (one each, two on the first), `kill -9`s the leader
 * once writes flow, waits (5 s at most) for a follower to lead and for every follower to
 * name it, then for 10 more writes acknowledged after that. Every write's answer is
 * recorded and judged after the load (never swallowed): a 2xx before the kill and after
 * the new leader is named everywhere, one of `failover` in between.
 * @throws when a wait runs out or a write got an answer it may not get.
 */
export async function killLeaderUnderLoad(o: LeaderKillOptions): Promise<LeaderKill> {
  const leaderOfP = o.leaderOf ?? leaderOf;
  const acknowledged: string[] = [];
  const answers: Record<string, number> = {};
  const wrong: string[] = [];
  // The phase a write was sent in, and the phase it ended in: 0 before the kill, 1 until every follower names the new leader, 2 after.
  let phase = 0;
  let settledAcks = 0;
  let stop = false;
  const judge = (name: string, sent: number, a: WriteAnswer | Error) => {
    const key = a instanceof Error ? `no answer: ${a.message}` : `${a.status}${a.status < 300 ? '' : ` ${a.text.trim().slice(0, 120)}`}`;
    answers[key] = (answers[key] ?? 0) + 1;
    if (!(a instanceof Error) && a.status >= 200 && a.status < 300) {
      acknowledged.push(name);
      if (sent === 2) settledAcks++;
      return true;
    }
    const inFailover = sent === 1 || (sent === 0 && phase >= 1);
    const allowed = !(a instanceof Error) && inFailover && o.failover.some((f) => f.status === a.status && f.text.test(a.text));
    if (!allowed) wrong.push(`${name} (sent ${['before the kill', 'during the failover', 'after the failover'][sent]}): ${key}`);
    return false;
  };
  const writer = async (p: ServerProcess, tag: string) => {
    for (let i = 0; !stop; i++) {
      const name = `${tag}-${i}`;
      const sent = phase;
      const a = await o.write(p, name).catch((err: Error) => err);
      if (!judge(name, sent, a)) await new Promise((res) => setTimeout(res, 20));
    }
  };
  const writers = [...o.followers.map((p, i) => writer(p, `w${i}`)), writer(o.followers[0]!, 'w0b')];
  let leader = '';
  try {
    await until('writes flow', 5000, () => (acknowledged.length >= 20 ? true : undefined));
    phase = 1;
    await o.leader.kill();
    const hosts = o.followers.map(hostOf);
    leader = await until('a follower leads', 5000, async () => {
      const l = await leaderOfP(o.followers[0]!);
      return hosts.includes(l) ? l : undefined;
    });
    for (const p of o.followers) await until('every follower names the new leader', 5000, async () => ((await leaderOfP(p)) === leader ? true : undefined));
    phase = 2;
    await until('writes flow again', 10_000, () => (settledAcks >= 10 ? true : undefined));
  } finally {
    stop = true;
    await Promise.all(writers);
  }
  assert.deepEqual(wrong, [], `writes with an answer they may not get: ${wrong.slice(0, 5).join('; ')} (all answers: ${JSON.stringify(answers)})`);
  return { acknowledged, leader, answers };
}
