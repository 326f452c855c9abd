/**
 * Parent side of the benchmark servers: forks bench/child.ts (one process per server, so
 * the load generator and the server under test do not share an event loop), waits for
 * its `ready` message, and kills every child when this process exits.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeServerSource, serverExecArgv, serverSource } from './server-source.js';

/** Server kinds implemented in bench/child.ts. */
export type ServerKind =
  | 'bare'
  | 'bare-aes'
  | 'secrets'
  | 'secrets-audit'
  | 'secrets-pg'
  | 'dev'
  | 'gateway'
  | 'gateway-controller'
  | 'gateway-worker'
  | 'gateway-sessions'
  | 'mesh'
  | 'sched';

export interface BenchServer {
  readonly kind: ServerKind;
  readonly url: string;
  /** Root token (secrets services), management token (discovery service `mesh`). */
  readonly token: string | undefined;
  readonly pid: number;
  /**
   * Counters reported by the child (secrets, mesh: `SqliteBackend.stats`; secrets-pg:
   * `PostgresBackend.stats`; bare: request count; sched: RSS bytes).
   */
  stats(): Promise<Record<string, number>>;
  /** A kind-specific request to the child (bench/child.ts `request`), e.g. the scheduler's `publish`. */
  request(msg: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'child.ts');
const live = new Map<ChildProcess, ServerKind>();
const dataDirs = new Set<string>();

function killAll(): void {
  // secrets-pg gets SIGTERM, which it handles by closing and stopping its PostgreSQL
  // cluster (a SIGKILL would leave the cluster running); it finishes after we exit.
  for (const [c, kind] of live) {
    if (c.exitCode === null && c.signalCode === null) c.kill(kind === 'secrets-pg' ? 'SIGTERM' : 'SIGKILL');
  }
  live.clear();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  dataDirs.clear();
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
  });
}

/** The server children's Node flags, set once per run from its settings ({@link configureServers}). */
let execArgv: string[] | undefined;

/**
 * Takes the run's settings (bench/run.ts injects `process.env`): which code the servers
 * load (bench/server-source.ts, decided once) and `BENCH_CHILD_ARGS`, extra node flags
 * for them, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a server under load.
 * Returns the line that says which code they run.
 */
export function configureServers(env: NodeJS.ProcessEnv): string {
  const source = serverSource(env);
  execArgv = [...serverExecArgv(source), ...(env.BENCH_CHILD_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
  return describeServerSource(source);
}

/** Forks a server child of `kind` on a fresh temp data dir; resolves once it listens. @throws before {@link configureServers}. */
export async function startServer(kind: ServerKind, options: Record<string, unknown> = {}): Promise<BenchServer> {
  if (!execArgv) throw new Error('bench: configureServers(env) must run before startServer');
  const dataDir = mkdtempSync(join(tmpdir(), `cairn-bench-${kind}-`));
  dataDirs.add(dataDir);
  const child = fork(CHILD, [kind, dataDir, JSON.stringify(options)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  live.set(child, kind);

  let nextId = 0;
  const waiting = new Map<number, (stats: Record<string, number>) => void>();
  const requests = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ready = new Promise<{ url: string; token?: string; pid: number }>((resolve, reject) => {
    child.on(
      'message',
      (msg: {
        type: string;
        id?: number;
        stats?: Record<string, number>;
        message?: string;
        url?: string;
        token?: string;
        pid?: number;
        result?: unknown;
        error?: string;
      }) => {
        if (msg.type === 'done') {
          const r = requests.get(msg.id!);
          requests.delete(msg.id!);
          if (msg.error !== undefined) r?.reject(new Error(`${kind} server: ${msg.error}`));
          else r?.resolve(msg.result);
        } else if (msg.type === 'ready') resolve({ url: msg.url!, token: msg.token, pid: msg.pid! });
        else if (msg.type === 'error') reject(new Error(`${kind} server failed to start:\n${msg.message}`));
        else if (msg.type === 'stats') {
          waiting.get(msg.id!)?.(msg.stats ?? {});
          waiting.delete(msg.id!);
        }
      },
    );
    child.on('exit', (code, signal) => {
      live.delete(child);
      reject(new Error(`${kind} server exited early (code ${code}, signal ${signal})`));
    });
    child.on('error', reject);
  });
  const info = await ready;
  // After startup, an unexpected exit is fatal for the whole run.
  let closing = false;
  child.on('exit', (code, signal) => {
    if (!closing) {
      console.error(`bench: ${kind} server (pid ${info.pid}) died (code ${code}, signal ${signal})`);
      process.exit(1);
    }
  });

  return {
    kind,
    url: info.url,
    token: info.token,
    pid: info.pid,
    stats: () =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        // 30 s: after a round of large replies (mesh-health-10k) the server is still answering the last ones.
        const t = setTimeout(() => reject(new Error(`${kind} server: no stats reply`)), 30_000);
        waiting.set(id, (s) => {
          clearTimeout(t);
          resolve(s);
        });
        child.send({ type: 'stats', id });
      }),
    request: (msg, timeoutMs) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const t = setTimeout(() => reject(new Error(`${kind} server: no reply to ${String(msg.type)}`)), timeoutMs);
        requests.set(id, {
          resolve: (v) => {
            clearTimeout(t);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(t);
            reject(e);
          },
        });
        child.send({ ...msg, id });
      }),
    close: async () => {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.send({ type: 'close' });
        // secrets-pg stops its PostgreSQL cluster on close (pg_ctl stop): give it longer.
        const t = setTimeout(() => child.kill('SIGKILL'), kind === 'secrets-pg' ? 30_000 : 5000);
        await exited;
        clearTimeout(t);
      }
      live.delete(child);
      rmSync(dataDir, { recursive: true, force: true });
      dataDirs.delete(dataDir);
    },
  };
}
