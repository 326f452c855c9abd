/**
 * A task's workload identities on the client (issue 27 scope 2; reference/integration.md §4,
 * the reference's identity hook): before the task starts, each identity the job exposes
 * (`env` or `file`) is fetched — the default one from the allocation (signed with the plan)
 * unless it has a `ttl`, the others signed for this node on request
 * (`POST /v1/allocation/:id/identities`) — then
 *
 * - written (`file = true`) to `secrets/cairn_token` (default) or `secrets/cairn_<name>.jwt`,
 *   or `filepath` under the task directory, mode 0600, replaced atomically;
 * - set (`env = true`) as `CAIRN_TOKEN` / `CAIRN_TOKEN_<name>` in the task's environment
 *   (for the next start of its process: a running process keeps its environment);
 * - with a `ttl`, signed again at half of it, rewritten, and its `change_mode` applied
 *   (`restart`, `signal` with `change_signal`, or `noop`). A failed refresh is retried with a
 *   backoff and never stops the task.
 *
 * Tokens are never logged; only their expiry is.
 *
 * @module
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../../kernel/log/logger.js';
import type { Task, TaskIdentityState, WorkloadIdentity } from '../jobs/types.js';
import type { TaskControl, TaskHook } from './task-hooks.js';
import { DEFAULT_IDENTITY, identitiesOf } from '../keyring/identity.js';

/** One signed identity as the servers return it. */
export interface SignedIdentity {
  readonly TaskName: string;
  readonly IdentityName: string;
  readonly JWT: string;
  /** RFC 3339, or null for a token without expiry. */
  readonly Expiration: string | null;
}

/** Asks the servers to sign identities of this allocation (with the node's secret). */
export type IdentitySigner = (requests: readonly { readonly TaskName: string; readonly IdentityName: string }[]) => Promise<readonly SignedIdentity[]>;

/** What a task's identities need. */
export interface TaskIdentitiesOptions {
  readonly task: Task;
  /** `<alloc>/<task>`. */
  readonly taskDir: string;
  /** The default identity signed with the plan (`SignedIdentities[task]`), if any. */
  readonly planned?: string;
  readonly sign: IdentitySigner;
  readonly log: Logger;
  /** Epoch ms. */
  readonly now: () => number;
}

/** The first retry of a failed refresh, in ms; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** Where identity `i` of a task is written, relative to the task directory. */
function identityFile(i: WorkloadIdentity): string {
  if (i.Filepath !== '') return i.Filepath;
  return i.Name === DEFAULT_IDENTITY ? 'secrets/cairn_token' : `secrets/cairn_${i.Name}.jwt`;
}

/** The environment variable of identity `i`. */
function identityEnvName(i: WorkloadIdentity): string {
  return i.Name === DEFAULT_IDENTITY ? 'CAIRN_TOKEN' : `CAIRN_TOKEN_${i.Name}`;
}

/** The exposed identities of one task, the task's first hook: see the module doc. */
export class TaskIdentities implements TaskHook {
  readonly name = 'identity';
  private readonly exposed: WorkloadIdentity[];
  private readonly tokens = new Map<string, string>();
  /** What each identity's state shows (never the token). */
  private readonly states = new Map<string, TaskIdentityState>();
  private control: TaskControl | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly o: TaskIdentitiesOptions) {
    this.exposed = identitiesOf(o.task).filter((i) => i.Env || i.File);
  }

  /** Does the task expose any identity (else nothing runs)? */
  get wanted(): boolean {
    return this.exposed.length > 0;
  }

  /** The variables of the identities with `env = true`, as last fetched. */
  env(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const i of this.exposed) {
      const t = this.tokens.get(i.Name);
      if (i.Env && t !== undefined) out[identityEnvName(i)] = t;
    }
    return out;
  }

  /**
   * Fetches and writes every exposed identity and schedules the refreshes; resolves once all
   * are in place. @throws the signing request's error (the task's start fails on it).
   */
  async prestart(control: TaskControl): Promise<void> {
    this.control = control;
    const ask = this.exposed.filter((i) => !(i.Name === DEFAULT_IDENTITY && i.TTL === 0 && this.o.planned !== undefined));
    const signed = ask.length === 0 ? [] : await this.o.sign(ask.map((i) => ({ TaskName: this.o.task.Name, IdentityName: i.Name })));
    for (const i of this.exposed) {
      const jwt =
        i.Name === DEFAULT_IDENTITY && i.TTL === 0 && this.o.planned !== undefined ? this.o.planned : signed.find((s) => s.IdentityName === i.Name)?.JWT;
      if (jwt === undefined) throw new Error(`the servers signed no identity "${i.Name}"`);
      this.put(i, jwt, signed.find((s) => s.IdentityName === i.Name)?.Expiration ?? null);
      if (i.TTL > 0) this.schedule(i, i.TTL / 2e6);
    }
  }

  /** Stops the refreshes (the task is dead). */
  stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return Promise.resolve();
  }

  /** Keeps `jwt` as identity `i`'s token, writes its file and reports its expiry (RFC 3339 or null) in the task state. */
  private put(i: WorkloadIdentity, jwt: string, expiration: string | null): void {
    this.tokens.set(i.Name, jwt);
    this.states.set(i.Name, { Name: i.Name, Expiration: expiration, FetchedAt: new Date(this.o.now()).toISOString() });
    this.control?.report({ Identities: [...this.states.values()] });
    if (!i.File) return;
    const path = join(this.o.taskDir, identityFile(i));
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, jwt, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  }

  /** Refreshes identity `i` in `ms`, then every half TTL; a failure retries sooner. */
  private schedule(i: WorkloadIdentity, ms: number, retryMs = FIRST_RETRY_MS): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.refresh(i, retryMs);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private async refresh(i: WorkloadIdentity, retryMs: number): Promise<void> {
    if (this.stopped) return;
    let fresh: SignedIdentity | undefined;
    try {
      fresh = (await this.o.sign([{ TaskName: this.o.task.Name, IdentityName: i.Name }])).find((s) => s.IdentityName === i.Name);
      if (!fresh) throw new Error(`the servers signed no identity "${i.Name}"`);
    } catch (err) {
      this.o.log.warn(
        { task: this.o.task.Name, identity: i.Name, err: (err as Error).message, retryMs },
        'client: refreshing a workload identity failed; retrying',
      );
      // Never later than the half TTL: the token in place may still be good that long.
      this.schedule(i, Math.min(retryMs, i.TTL / 2e6), Math.min(retryMs * 2, MAX_RETRY_MS));
      return;
    }
    if (this.stopped) return;
    this.put(i, fresh.JWT, fresh.Expiration);
    this.o.log.debug({ task: this.o.task.Name, identity: i.Name, expires: fresh.Expiration }, 'client: workload identity refreshed');
    this.applyChangeMode(i);
    this.schedule(i, i.TTL / 2e6);
  }

  /** A refreshed identity's `change_mode`: `restart`, or `signal` with `change_signal` (a task between two starts reads the new file at its next start). */
  private applyChangeMode(i: WorkloadIdentity): void {
    const c = this.control;
    if (!c || c.dead) return;
    if (i.ChangeMode === 'restart') c.restart(`identity "${i.Name}" was refreshed`);
    else if (i.ChangeMode === 'signal' && c.running) {
      try {
        c.signal(i.ChangeSignal);
      } catch (err) {
        this.o.log.debug({ task: this.o.task.Name, err: (err as Error).message }, 'client: no process to signal for a refreshed identity');
      }
    }
  }
}
