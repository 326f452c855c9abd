/**
 * A/B of the HTTP layer alone (issue 15, the LIST framer's cost): the same handler (a
 * fixed 434-byte JSON reply, the size of a KV v2 read reply) behind
 *   native — Cairn's `createHttpServer` as shipped: node:http's native read path until a LIST;
 *   framed — the same with a no-op `'data'` listener added at connection, which makes
 *            list-method.ts frame the connection from its first byte (the behaviour before issue 15);
 *   bare   — plain `http.createServer`,
 * each in its own process, driven by `wrk -t1 -c32` (GET with an `X-Secrets-Token` header)
 * in alternating rounds, printing req/s and the server's CPU µs per request
 * (/proc/<pid>/stat, bench/cpu.ts) per round.
 *
 *   BENCH_ROUNDS=6 BENCH_SECONDS=5 node --import tsx bench/http-layer-ab.ts
 *
 * Needs wrk and Linux /proc. Not part of `npm run bench`.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createHttpServer } from '../src/kernel/http/list-method.js';
import { cpuSeconds } from './cpu.js';

const KINDS = ['native', 'framed', 'bare'] as const;
const body = Buffer.from(`{"hello":"world","pad":"${'x'.repeat(434 - 26)}"}`);

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': body.length });
  res.end(body);
}

/** Child: listens with the server of `kind` and sends its port to the parent. */
function serve(kind: string): void {
  const server = kind === 'bare' ? http.createServer(handler) : (createHttpServer({}, handler) as http.Server);
  if (kind === 'framed') server.on('connection', (s: Socket) => s.on('data', () => undefined));
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('disconnect', () => process.exit(0));
}

/**
 * The run's settings from `env` (the entry point injects `process.env`, as bench/run.ts
 * does with `BenchConfig.env`): `BENCH_ROUNDS` measured rounds (default 6) and
 * `BENCH_SECONDS` seconds per server per round (default 5). @throws Error naming the variable
 * when one is not a whole number ≥ 1.
 */
function abSettings(env: NodeJS.ProcessEnv): { rounds: number; seconds: number } {
  const whole = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`bad ${name}: ${raw} (a whole number ≥ 1)`);
    return n;
  };
  return { rounds: whole('BENCH_ROUNDS', 6), seconds: whole('BENCH_SECONDS', 5) };
}

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const { rounds, seconds } = abSettings(env);
  const children: ChildProcess[] = [];
  const servers = await Promise.all(
    KINDS.map(
      (kind) =>
        new Promise<{ kind: string; pid: number; port: number }>((resolve, reject) => {
          const c = fork(fileURLToPath(import.meta.url), [kind], { execArgv: ['--import', 'tsx'] });
          children.push(c);
          c.once('message', (m: { port: number }) => resolve({ kind, pid: c.pid!, port: m.port }));
          c.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
        }),
    ),
  );
  const results = new Map<string, string[]>();
  try {
    // Round 0 warms every server up and is not reported; the starting server rotates.
    for (let r = 0; r <= rounds; r++) {
      for (let i = 0; i < servers.length; i++) {
        const s = servers[(i + r) % servers.length];
        const before = cpuSeconds(s.pid)!;
        const out = execFileSync(
          'wrk',
          ['-t1', '-c32', `-d${r === 0 ? 2 : seconds}s`, '-H', 'X-Secrets-Token: s.bench', `http://127.0.0.1:${s.port}/v1/secret/data/bench/k1`],
          { encoding: 'utf8' },
        );
        const cpu = cpuSeconds(s.pid)! - before;
        const n = Number(/(\d+) requests in/.exec(out)?.[1]);
        const line = `${Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]))} req/s ${((cpu * 1e6) / n).toFixed(1)} µs`;
        if (r > 0) results.set(s.kind, [...(results.get(s.kind) ?? []), line]);
      }
    }
  } finally {
    for (const c of children) c.kill();
  }
  for (const kind of KINDS) console.log(`${kind.padEnd(7)} ${(results.get(kind) ?? []).join(' | ')}`);
}

if (process.argv[2]) serve(process.argv[2]);
else await main(process.env);
