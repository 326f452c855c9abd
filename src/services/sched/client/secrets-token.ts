/**
 * A task's secrets service token: the client's `vault` hook (issue 27 scope 3;
 * reference/integration.md §4, the reference's `vault_hook.go` in its workload-identity
 * form), second of the task's hooks (task-hooks.ts), for tasks with a `vault` block
 * (jobs/vault.ts).
 *
 * Before the first start it
 * - reuses the token a previous run of the client left in `private/vault_token` (or
 *   `secrets/vault_token`) when `auth/token/lookup-self` says it is valid — a client restart
 *   issues no new token (the reference recovers the file too); when the service does not
 *   answer, the recovered token is kept and its renewal sorts it out;
 * - else asks the servers to sign the task's `vault_default` identity and logs in with it at
 *   `auth/<vault.jwt_auth_backend_path>/login` `{role, jwt}` (role: the block's `role`, else
 *   the client's `vault.create_from_role`, else the auth method's `default_role`). A login
 *   refused (4xx: the role does not match the identity) fails the task's setup with the
 *   reference's text `Vault: failed to derive vault token: failed to derive Vault token for
 *   identity vault_default …`, naming the role; no answer, a 5xx or a 429 keeps the task
 *   waiting, retried with a backoff, with a `Task hook failed` event the first time;
 * - writes the token to `private/vault_token` (what a client restart reads back) and, unless
 *   `disable_file`, `secrets/vault_token` (0600, replaced atomically), sets `VAULT_TOKEN` (with
 *   `env`; `VAULT_NAMESPACE` too with a namespace) and hands it to the template hook
 *   (`TaskHookResources.secretsToken`).
 *
 * While the task runs, the token is renewed (`auth/token/renew-self`) at half its lease (the
 * reference's client: ± 10 s of jitter once the half is 30 s or more), unless
 * `allow_token_expiration` or the token is not renewable. Errors are classified
 * (secrets-token-errors.ts): a transient one is retried with a backoff (1 s doubling to 30 s)
 * for as long as the task runs, with a `Task hook failed` event when the outage starts and a
 * `Task hook message` when it ends; a final one (expired, revoked, not renewable) — or a
 * renewal that no longer extends the lease (its maximum TTL is near) — logs in again with a
 * freshly signed identity, writes the new token and applies `change_mode` (`restart`,
 * `signal` with `change_signal`, `noop`), with the reference's `Vault: new Vault token
 * acquired`. A running task is never killed by this hook.
 *
 * When the task is dead, the token is revoked (`auth/token/revoke-self`) unless
 * `allow_token_revocation = false`; not when the client agent only stops (its tasks start
 * again with the same token when it comes back).
 *
 * Tokens and JWTs are never logged.
 *
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../../kernel/log/logger.js';
import { SecretsClient } from '../../../sdk/secrets.js';
import type { Task, TaskVault } from '../jobs/types.js';
import { VAULT_IDENTITY } from '../jobs/vault.js';
import type { IdentitySigner } from './identities.js';
import { classifySecretsError } from './secrets-token-errors.js';
import { EVENT } from './task-event.js';
import type { TaskControl, TaskHook, TaskHookResources } from './task-hooks.js';
import type { VaultClientSettings } from './vault-config.js';

/** The first retry after a transient error, in ms; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** One request to the secrets service may take this long (ms) before it counts as no answer. */
const REQUEST_TIMEOUT_MS = 10_000;
/** The reference's client renews with jitter only when half the lease is at least this (s), by ± {@link RENEW_JITTER_S}. */
const RENEW_JITTER_CUTOFF_S = 30;
const RENEW_JITTER_S = 10;
/** The event types the hook writes besides `Task hook failed` (the reference's `TaskHookMessage`). */
const HOOK_MESSAGE = 'Task hook message';

/** The wait before attempt `n + 1` after `n` failed ones (ms). */
function backoffMs(n: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(n, 16));
}

/**
 * When to renew a token whose lease is `leaseS` seconds (ms from now): half the lease, with
 * ± 10 s of jitter once that half is 30 s or more (the reference's `renewalTime`).
 * @param random a number in [0, 1) (`Math.random`)
 */
export function renewalDelayMs(leaseS: number, random: () => number = Math.random): number {
  const half = leaseS / 2;
  if (half < RENEW_JITTER_CUTOFF_S) return half * 1000;
  return (half - RENEW_JITTER_S + random() * 2 * RENEW_JITTER_S) * 1000;
}

/** What a task's secrets token hook needs. */
export interface SecretsTokenOptions {
  readonly task: Task & { readonly Vault: TaskVault };
  /** `<alloc>/<task>`. */
  readonly taskDir: string;
  /** The client's `vault` block; absent: the task cannot start (the reference's text). */
  readonly settings: VaultClientSettings | undefined;
  /** Signs the task's `vault_default` identity (the servers, with the node's secret). */
  readonly sign: IdentitySigner;
  /** Shared with the task's other hooks: the template hook reads `secretsToken`. */
  readonly resources: TaskHookResources;
  readonly log: Logger;
}

/** The token of one task (module doc). */
export class SecretsTokenHook implements TaskHook {
  readonly name = 'vault';
  private readonly vault: TaskVault;
  private client: SecretsClient | undefined;
  private control: TaskControl | undefined;
  private token: string | undefined;
  /** The lease (s) of the last login or renewal; a renewal giving less is capped by the maximum TTL. */
  private lease = 0;
  /** Failed attempts in a row of the current renewal or login (0: none). */
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The renewal or login under way (stop waits for it, so a token it obtains is revoked too). */
  private busy: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: SecretsTokenOptions) {
    this.vault = o.task.Vault;
  }

  /** `VAULT_TOKEN` (with `env`) and `VAULT_NAMESPACE` (with a namespace) as last obtained. */
  env(): Record<string, string> {
    if (!this.vault.Env || this.token === undefined) return {};
    const ns = this.namespace();
    return { VAULT_TOKEN: this.token, ...(ns !== '' && { VAULT_NAMESPACE: ns }) };
  }

  /**
   * Recovers or obtains the token, writes it and starts its renewal (module doc).
   * @throws the reference's texts: no client configuration; a login refused.
   */
  async prestart(control: TaskControl, abort: AbortSignal): Promise<void> {
    this.control = control;
    const settings = this.o.settings;
    if (!settings) throw new Error(`No client configuration found for Vault cluster ${this.vault.Cluster}`);
    this.client = new SecretsClient({
      address: settings.address,
      namespace: this.namespace(),
      ...(settings.caCert !== undefined && { caCert: settings.caCert }),
      ...(settings.tlsServerName !== undefined && { tlsServerName: settings.tlsServerName }),
      skipVerify: settings.tlsSkipVerify,
      fetchTimeoutMs: REQUEST_TIMEOUT_MS,
      readYourWrites: false,
    });
    if (await this.recover()) return;
    for (;;) {
      if (abort.aborted || this.stopped) return;
      try {
        const { token, lease, renewable } = await this.login();
        this.recovered('a Vault token was obtained');
        this.put(token);
        this.renewIn(lease, renewable);
        return;
      } catch (err) {
        if (abort.aborted || this.stopped) return;
        if (classifySecretsError(err) === 'final') throw new Error(this.loginFailure(err));
        this.failed(`${this.loginFailure(err)}; retrying`);
        await sleep(backoffMs(this.failures - 1), abort);
      }
    }
  }

  /** Stops the renewal; revokes the token when the task is dead (not when only the agent stops) unless `allow_token_revocation = false`. Never throws. */
  async stop(o?: { readonly shutdown?: boolean }): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    if (!client) return;
    const revoke = this.vault.AllowTokenRevocation && o?.shutdown !== true;
    if (revoke) await this.busy;
    if (this.token !== undefined && revoke) {
      try {
        await client.withToken(this.token).token.revokeSelf();
        this.o.log.debug({ task: this.o.task.Name }, 'client: the task secrets token was revoked');
      } catch (err) {
        this.o.log.warn({ task: this.o.task.Name, err: (err as Error).message }, 'client: revoking the task secrets token failed');
      }
    }
    await client.close();
  }

  /** The namespace logins are made in: the block's, else the client's. */
  private namespace(): string {
    return this.vault.Namespace || (this.o.settings?.namespace ?? '');
  }

  /** The role of the login: the block's, else the client's `create_from_role`; `''`: the auth method's `default_role`. */
  private role(): string {
    return this.vault.Role || (this.o.settings?.createFromRole ?? '');
  }

  /** The reference's text for a failed login, naming the identity and the role. */
  private loginFailure(err: unknown): string {
    const role = this.role() === '' ? 'the default role' : `role "${this.role()}"`;
    return `Vault: failed to derive vault token: failed to derive Vault token for identity ${VAULT_IDENTITY} with ${role}: ${(err as Error).message}`;
  }

  /** The token a previous run of the client wrote, if `lookup-self` does not say it is gone; it then is the task's token. */
  private async recover(): Promise<boolean> {
    let token: string | undefined;
    for (const f of ['private/vault_token', 'secrets/vault_token']) {
      try {
        token = readFileSync(join(this.o.taskDir, f), 'utf8').trim();
        if (token !== '') break;
      } catch {
        // not written by a previous run
      }
    }
    if (!token) return false;
    try {
      const data = (await this.client!.withToken(token).token.lookup()).data;
      if (!data) throw new Error('the token lookup returned no data');
      this.put(token);
      this.renewIn(data.ttl, data.renewable);
      this.o.log.info({ task: this.o.task.Name, ttl: data.ttl }, 'client: reusing the task secrets token of the previous run');
      return true;
    } catch (err) {
      if (classifySecretsError(err) === 'final') return false;
      // No answer: keep it; its renewal retries until the service answers (then logs in again if it is gone).
      this.put(token);
      this.lease = 0;
      this.failures = 1;
      this.schedule(FIRST_RETRY_MS, () => this.renew());
      return true;
    }
  }

  /** Signs a fresh `vault_default` identity and logs in with it. @throws the signer's and the service's errors. */
  private async login(): Promise<{ token: string; lease: number; renewable: boolean }> {
    const signed = await this.o.sign([{ TaskName: this.o.task.Name, IdentityName: VAULT_IDENTITY }]);
    const jwt = signed.find((s) => s.IdentityName === VAULT_IDENTITY)?.JWT;
    if (jwt === undefined) throw new Error(`the servers signed no identity "${VAULT_IDENTITY}"`);
    const res = await this.client!.auth.jwt(this.role() || undefined, jwt, this.o.settings!.jwtAuthBackendPath);
    const auth = res.auth!;
    return { token: auth.client_token, lease: auth.lease_duration, renewable: auth.renewable };
  }

  /** Keeps `token` as the task's: files, the hooks after this one. */
  private put(token: string): void {
    this.token = token;
    this.o.resources.secretsToken = token;
    this.write('private/vault_token', token);
    if (!this.vault.DisableFile) this.write('secrets/vault_token', token);
  }

  /** Writes `content` to `rel` under the task directory, 0600, replaced atomically. */
  private write(rel: string, content: string): void {
    const path = join(this.o.taskDir, rel);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, content, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  }

  /** Schedules the next renewal of a token whose lease is `leaseS` seconds (none: no expiry, not renewable, or `allow_token_expiration`). */
  private renewIn(leaseS: number, renewable: boolean): void {
    this.lease = leaseS;
    if (leaseS <= 0 || this.vault.AllowTokenExpiration) return;
    // A token that cannot be renewed is replaced before it ends.
    if (!renewable) this.schedule((leaseS * 2000) / 3, () => this.relogin('the token is not renewable'));
    else this.schedule(renewalDelayMs(leaseS), () => this.renew());
  }

  private schedule(ms: number, run: () => Promise<void>): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // A file that cannot be written: logged, the task keeps its token in place.
      this.busy = run().catch((err: unknown) =>
        this.o.log.error({ task: this.o.task.Name, err: (err as Error).message }, 'client: the task secrets token hook failed'),
      );
    }, ms);
    this.timer.unref();
  }

  /** One renewal (module doc). */
  private async renew(): Promise<void> {
    if (this.stopped || this.token === undefined) return;
    let lease: number;
    let renewable: boolean;
    try {
      const auth = await this.client!.withToken(this.token).token.renewSelf();
      lease = auth.lease_duration;
      renewable = auth.renewable;
    } catch (err) {
      if (this.stopped) return;
      if (classifySecretsError(err) === 'final') return this.relogin(`renewing the token failed for good: ${(err as Error).message}`);
      this.failed(`Vault: failed to renew the Vault token; retrying: ${(err as Error).message}`);
      this.schedule(backoffMs(this.failures - 1), () => this.renew());
      return;
    }
    if (this.stopped) return;
    this.recovered('the Vault token was renewed');
    this.o.log.debug({ task: this.o.task.Name, lease }, 'client: task secrets token renewed');
    // Less than before: the maximum TTL caps it; a new token is needed before it ends.
    if (lease > 0 && lease < this.lease) {
      this.lease = lease;
      this.schedule((lease * 2000) / 3, () => this.relogin('the token reaches its maximum TTL'));
      return;
    }
    this.renewIn(lease, renewable);
  }

  /** A new token for a running task: log in (retried with a backoff while the task runs), write, apply `change_mode`. */
  private async relogin(why: string): Promise<void> {
    if (this.stopped) return;
    this.o.log.info({ task: this.o.task.Name, why }, 'client: logging in again for the task secrets token');
    let got: { token: string; lease: number; renewable: boolean };
    try {
      got = await this.login();
    } catch (err) {
      if (this.stopped) return;
      this.failed(`${this.loginFailure(err)}; retrying`);
      this.schedule(backoffMs(this.failures - 1), () => this.relogin(why));
      return;
    }
    if (this.stopped) {
      this.token = got.token; // for stop to revoke
      return;
    }
    this.recovered('a new Vault token was obtained');
    this.put(got.token);
    this.renewIn(got.lease, got.renewable);
    this.applyChangeMode();
  }

  /** The reference's `handleRenewal`: `restart`, `signal` or `noop`, with `Vault: new Vault token acquired`. */
  private applyChangeMode(): void {
    const c = this.control;
    if (!c || c.dead) return;
    const why = 'Vault: new Vault token acquired';
    if (this.vault.ChangeMode === 'restart') c.restart(why);
    else if (this.vault.ChangeMode === 'signal' && c.running) {
      try {
        c.signal(this.vault.ChangeSignal);
      } catch (err) {
        this.o.log.debug({ task: this.o.task.Name, err: (err as Error).message }, 'client: no process to signal for a new secrets token');
      }
    }
  }

  /** A failed attempt: logged each time, an event for the first of a run of failures. */
  private failed(message: string): void {
    this.failures += 1;
    this.o.log.warn({ task: this.o.task.Name, attempt: this.failures, err: message }, 'client: the secrets service did not answer the task token request');
    if (this.failures === 1) this.control?.event(EVENT.hookFailed, message);
  }

  /** After a run of failures, an event saying it ended. */
  private recovered(what: string): void {
    if (this.failures === 0) return;
    this.control?.event(HOOK_MESSAGE, `Vault: ${what} after ${this.failures} failed attempt${this.failures === 1 ? '' : 's'}`);
    this.failures = 0;
  }
}

/** Waits `ms`, or less when `abort` fires. */
function sleep(ms: number, abort: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      abort.removeEventListener('abort', done);
      resolve();
    }
    abort.addEventListener('abort', done);
  });
}
