/**
 * A task's discovery token (issue 27 scope 4; reference/integration.md §4, the reference's
 * consul hook for tasks): a task with the `consul_default` identity (added at submit to tasks
 * with a `consul` block, jobs/consul-identities.ts) logs in before it starts —
 *
 * - `POST /v1/acl/login` at `consul.task_auth_method` (default `cairn-workloads`) with a fresh
 *   `consul_default` JWT, signed for it by the servers (identities.ts' signer), `Meta`
 *   `requested_by = cairn_task_<task>`; the discovery service's binding rules give the token
 *   its role (`cairn-tasks-<namespace>` as `cairn dev` sets them up);
 * - the token is written to `secrets/consul_token` (0600, replaced atomically) and set as
 *   `CONSUL_TOKEN` in the task's environment (the reference's names: apps read them), and
 *   handed to the template hook (`TaskHookResources.discoveryToken`);
 * - a transient failure (the discovery service or the servers unreachable, 5xx, 429) keeps
 *   the task waiting: one `Task hook failed` event per outage, and retries after 1 s,
 *   doubling to 30 s; a refused login (4xx: no binding rule matched, a bad audience, no such
 *   auth method) fails the task's setup with `failed to derive Consul token for task <task>:
 *   auth method "<name>": <the service's text>` (the reference's text, plus the method);
 * - after a client restart the token in `secrets/consul_token` is reused when
 *   `GET /v1/acl/token/self` still accepts it (§8.2: no new credentials for a restart);
 * - when the task is dead the token is logged out (`POST /v1/acl/logout`).
 *
 * The token is never logged.
 *
 * @module
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../../kernel/log/logger.js';
import { CONSUL_TASK_IDENTITY } from '../jobs/consul-identities.js';
import type { Task } from '../jobs/types.js';
import { identitiesOf } from '../keyring/identity.js';
import { finalError, login, logout, stillValid } from './discovery-login.js';
import type { IdentitySigner } from './identities.js';
import { EVENT } from './task-event.js';
import type { TaskControl, TaskHook, TaskHookResources } from './task-hooks.js';

/** Where the token is written, relative to the task directory (the reference's path). */
const CONSUL_TOKEN_FILE = 'secrets/consul_token';
/** First and longest pause between login attempts, in ms (doubling between). */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** What a task's discovery token needs. */
export interface DiscoveryTokenOptions {
  readonly task: Task;
  /** `<alloc>/<task>`. */
  readonly taskDir: string;
  /** The discovery agent's address (`consul.address`). */
  readonly address: string;
  /** `consul.task_auth_method`. */
  readonly authMethod: string;
  readonly sign: IdentitySigner;
  /** Shared with the task's other hooks: `discoveryToken` is set here. */
  readonly resources: TaskHookResources;
  readonly log: Logger;
}

/** Waits `ms`, or less when `abort` fires. */
function pause(ms: number, abort: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      abort.removeEventListener('abort', done);
      resolve();
    }
    abort.addEventListener('abort', done, { once: true });
  });
}

/** Writes `content` to `path` with mode 0600, replacing it atomically. */
function writeSecret(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The task's discovery token, its third hook: see the module doc. */
export class DiscoveryToken implements TaskHook {
  readonly name = 'consul';
  private secret: string | undefined;

  constructor(private readonly o: DiscoveryTokenOptions) {}

  /** Does the task have the `consul_default` identity (else there is nothing to do)? */
  static wanted(task: Task): boolean {
    return identitiesOf(task).some((i) => i.Name === CONSUL_TASK_IDENTITY);
  }

  /** `CONSUL_TOKEN`, once logged in. */
  env(): Record<string, string> {
    return this.secret === undefined ? {} : { CONSUL_TOKEN: this.secret };
  }

  /**
   * Reuses the persisted token if still valid, else logs in (retrying transient failures
   * until `abort`), then writes it. @throws Error on a refused login (the task's setup fails).
   */
  async prestart(control: TaskControl, abort: AbortSignal): Promise<void> {
    const path = join(this.o.taskDir, CONSUL_TOKEN_FILE);
    let retryMs = RETRY_FIRST_MS;
    let told = false;
    while (!abort.aborted) {
      try {
        this.secret = (await this.reuse(path)) ?? (await this.login());
        break;
      } catch (err) {
        const message = (err as Error).message;
        if (finalError(err)) throw new Error(`failed to derive Consul token for task ${this.o.task.Name}: auth method "${this.o.authMethod}": ${message}`);
        if (!told) control.event(EVENT.hookFailed, `consul: logging in at auth method "${this.o.authMethod}" failed (${message}); retrying`);
        told = true;
        this.o.log.warn({ task: this.o.task.Name, err: message, retryMs }, 'client: a discovery login failed; retrying');
        await pause(retryMs, abort);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
    if (this.secret === undefined) return; // killed while waiting
    writeSecret(path, this.secret);
    this.o.resources.discoveryToken = this.secret;
  }

  /** Logs the token out (the task is dead); failures are logged. */
  async stop(): Promise<void> {
    const secret = this.secret;
    if (secret === undefined) return;
    this.secret = undefined;
    try {
      await logout(this.o.address, secret);
    } catch (err) {
      this.o.log.warn({ task: this.o.task.Name, err: (err as Error).message }, 'client: logging out a task discovery token failed');
    }
  }

  /** The token a previous run of this client wrote, if the discovery service still accepts it. */
  private async reuse(path: string): Promise<string | undefined> {
    if (!existsSync(path)) return undefined;
    const secret = readFileSync(path, 'utf8').trim();
    return secret !== '' && (await stillValid(this.o.address, secret)) ? secret : undefined;
  }

  private async login(): Promise<string> {
    const signed = await this.o.sign([{ TaskName: this.o.task.Name, IdentityName: CONSUL_TASK_IDENTITY }]);
    const jwt = signed.find((s) => s.IdentityName === CONSUL_TASK_IDENTITY)?.JWT;
    if (jwt === undefined) throw new Error(`the servers signed no identity "${CONSUL_TASK_IDENTITY}"`);
    const token = await login(this.o.address, { authMethod: this.o.authMethod, jwt, meta: { requested_by: `cairn_task_${this.o.task.Name}` } });
    this.o.log.info({ task: this.o.task.Name, accessor: token.AccessorID }, 'client: task logged in at the discovery service');
    return token.SecretID;
  }
}
