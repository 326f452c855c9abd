/**
 * The discovery tokens of one allocation's services (issue 27 scope 4; reference/integration.md
 * §4, the reference's consul hook for services): a service with a service identity
 * (jobs/consul-identities.ts) is registered with a token from logging in with that identity
 * at `consul.service_auth_method` — a `BindType service` binding rule makes it a token that can
 * register exactly that service — instead of the client's own `consul { token }`.
 *
 * - one token per service identity, made at the service's first registration and kept for the
 *   allocation's life (a task restart registers again with the same token);
 * - kept in `<alloc dir>/service_tokens.json` (0600, replaced atomically): after a client
 *   restart each is reused while `GET /v1/acl/token/self` accepts it, else dropped; none leaks;
 * - logged out once the allocation's services are deregistered ({@link ServiceTokens.logoutAll});
 * - the client's token stays the fallback: for a service without an identity, and when the
 *   login fails (no such auth method, ACLs off, the service unreachable), which is logged —
 *   Cairn's difference: the reference fails the allocation; here the registration goes on
 *   with what the client may do, as before identities.
 *
 * Tokens are never logged.
 *
 * @module
 */
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../../../kernel/log/logger.js';
import type { Service } from '../../jobs/services.js';
import { login, logout, stillValid } from '../discovery-login.js';
import type { IdentitySigner } from '../identities.js';

/** The file the tokens are kept in, in the allocation's directory. */
const TOKENS_FILE = 'service_tokens.json';
/** Most tokens one allocation keeps (jobs allow 64 services per group and per task). */
const MAX_TOKENS = 1024;

/** Options of {@link ServiceTokens}. */
export interface ServiceTokensOptions {
  /** `<alloc_dir>/<alloc ID>`. */
  readonly allocRoot: string;
  /** The discovery agent's address. */
  readonly address: string;
  /** `consul.service_auth_method`. */
  readonly authMethod: string;
  readonly sign: IdentitySigner;
  readonly log: Logger;
}

/** One allocation's service tokens: see the module doc. */
export class ServiceTokens {
  /** Identity name → token secret. */
  private readonly tokens = new Map<string, string>();
  /** Identity name → the login in flight (one per identity). */
  private readonly pending = new Map<string, Promise<string | undefined>>();
  private loaded: Promise<void> | undefined;

  constructor(private readonly o: ServiceTokensOptions) {}

  /**
   * The token to register `service` with (`task`: its task; undefined for a group's
   * service): its identity's, logged in on first use; undefined (the client's token) without an
   * identity or when the login fails. Never throws.
   */
  async tokenFor(service: Service, task: string | undefined): Promise<string | undefined> {
    const identity = service.Identity;
    if (!identity) return undefined;
    this.loaded ??= this.load();
    await this.loaded;
    const known = this.tokens.get(identity.Name);
    if (known !== undefined) return known;
    let p = this.pending.get(identity.Name);
    if (!p) {
      p = this.login(identity.Name, service.Name, task ?? '');
      this.pending.set(identity.Name, p);
      void p.finally(() => this.pending.delete(identity.Name));
    }
    return p;
  }

  /** Logs every token out and forgets them (the allocation's services are deregistered). Failures are logged. */
  async logoutAll(): Promise<void> {
    this.loaded ??= this.load();
    await this.loaded;
    await Promise.all([...this.pending.values()]);
    const secrets = [...this.tokens.values()];
    this.tokens.clear();
    await Promise.all(
      secrets.map((s) => logout(this.o.address, s).catch((err: Error) => this.o.log.warn({ err: err.message }, 'client: logging out a service token failed'))),
    );
    rmSync(join(this.o.allocRoot, TOKENS_FILE), { force: true });
  }

  private async login(identityName: string, serviceName: string, task: string): Promise<string | undefined> {
    try {
      const signed = await this.o.sign([{ TaskName: task, IdentityName: identityName }]);
      const jwt = signed.find((s) => s.IdentityName === identityName)?.JWT;
      if (jwt === undefined) throw new Error(`the servers signed no identity "${identityName}"`);
      const token = await login(this.o.address, { authMethod: this.o.authMethod, jwt, meta: { requested_by: `cairn_service_${serviceName}` } });
      this.tokens.set(identityName, token.SecretID);
      this.save();
      this.o.log.info({ service: serviceName, accessor: token.AccessorID }, 'client: service logged in at the discovery service');
      return token.SecretID;
    } catch (err) {
      this.o.log.warn(
        { service: serviceName, authMethod: this.o.authMethod, err: (err as Error).message },
        "client: failed to derive a Consul token for a service; registering it with the client's token",
      );
      return undefined;
    }
  }

  /** The tokens a previous run kept that the discovery service still accepts (the others are gone or expired). */
  private async load(): Promise<void> {
    const path = join(this.o.allocRoot, TOKENS_FILE);
    if (!existsSync(path)) return;
    let kept: unknown;
    try {
      kept = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return;
    }
    if (typeof kept !== 'object' || kept === null) return;
    const entries = Object.entries(kept as Record<string, unknown>)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .slice(0, MAX_TOKENS);
    for (const [name, secret] of entries) {
      try {
        if (await stillValid(this.o.address, secret)) this.tokens.set(name, secret);
      } catch {
        // Unreachable now: kept, so it is logged out (or reused) later rather than leaked.
        this.tokens.set(name, secret);
      }
    }
    this.save();
  }

  private save(): void {
    const path = join(this.o.allocRoot, TOKENS_FILE);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.tokens)), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  }
}
