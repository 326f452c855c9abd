/**
 * The controller's state and the work around it (issue 20 scope 1; DESIGN.md "State"):
 * the kernel's agent state (kernel/store/agent-state.ts), SQLite at
 * `<data_dir>/gateway.db` or, with `database { url }`, a PostgreSQL table several
 * controllers share with one leader (kernel/store/leadership.ts); encrypted at rest with
 * the state key (`state_key`, else `<data_dir>/gateway-state.key`). Without `data_dir`
 * and `database` the state lives in a temporary directory removed at stop (logged as a
 * warning). The leader (every controller on SQLite) makes the initial resources
 * (bootstrap.ts), deletes ended auth tokens, renews credential store tokens and keeps
 * plugin host sets in step with their discovery service (host-sync.ts).
 *
 * @module
 */
import { hkdfSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../../kernel/log/logger.js';
import { ExpiryReaper, openAgentState, type StateLeadership } from '../../../kernel/store/index.js';
import { Periodic } from '../../../kernel/util/periodic.js';
import type { WorkerDirectory } from '../cluster-authority.js';
import type { GatewayControllerConfig } from '../config.js';
import { bootstrapDomain, bootstrapSecret, type BootstrapLogin, type BootstrapOptions } from './bootstrap.js';
import { bootstrapDevTarget } from './bootstrap-dev.js';
import { GATEWAY_TABLES, T, type AuthTokenDoc } from './docs.js';
import { GatewayDomain } from './domain.js';
import { PluginHostSync } from './host-sync.js';
import { tokenEndMs } from './tokens.js';
import { VaultTokenRenewer } from './vault-token-renewer.js';

/** The key of credential HMACs (credential-hmac.ts), derived from the state key so every controller of a state shares it. */
const credentialHmacKey = (stateKey: Uint8Array) => Buffer.from(hkdfSync('sha256', stateKey, '', 'cairn gateway credential hmac key v1', 32));

/** Options of {@link openController}. */
export interface ControllerStateOptions {
  readonly config: GatewayControllerConfig;
  readonly log: Logger;
  readonly now: () => number;
  /** `cairn dev`'s bootstrap (fixed ids, known password). */
  readonly bootstrap?: BootstrapOptions;
  /** Pause between rounds of deleting ended tokens, in ms; default 60000. */
  readonly reapIntervalMs?: number;
  /** Pause between rounds of renewing credential store tokens, in ms; default 10000 (vault-token-renewer.ts). */
  readonly credentialRenewIntervalMs?: number;
  /** Called once when this controller made the initial resources (at open on SQLite, on leading on PostgreSQL). */
  readonly onBootstrap?: (login: BootstrapLogin) => void;
  /** The workers the cluster server records (the domain offers them to new sessions). */
  readonly workers?: WorkerDirectory;
  /** Pause between the leader's passes over sessions (expiry, deletion of old terminated ones), in ms; default 1000. */
  readonly sessionSweepIntervalMs?: number;
}

/** Default pause between session sweeps: 1 s, in ms (expiry is seen within a worker status interval). */
const SESSION_SWEEP_INTERVAL_MS = 1000;

/** An opened controller state. */
export interface ControllerState {
  readonly domain: GatewayDomain;
  /** Present on PostgreSQL; start it with {@link ControllerState.startLeadership} once the api address is known. */
  readonly leadership?: StateLeadership;
  /** The admin login when this start made the initial resources (SQLite: at open; PostgreSQL: when leading). */
  readonly bootstrapped: () => BootstrapLogin | undefined;
  /** Starts electing (PostgreSQL); `address` is this controller's api `host:port`. */
  startLeadership(address: string): void;
  close(): Promise<void>;
}

/**
 * Opens the state and, on SQLite, bootstraps it.
 * @throws Error: PostgreSQL unreachable, a state key that is not the storage's, an
 *   unwritable data directory (the message names it).
 */
export async function openController(o: ControllerStateOptions): Promise<ControllerState> {
  const { config, log } = o;
  const temporary = !config.dataDir && !config.database;
  const dir = config.dataDir ?? mkdtempSync(join(tmpdir(), 'cairn-gateway-'));
  if (temporary) log.warn({ dir }, 'controller has no "data_dir" and no "database": its state is kept in a temporary directory and lost when it stops');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const sqlitePath = join(dir, 'gateway.db');
  // A first start on SQLite hashes the admin password while the state opens.
  let secret = !config.database && !existsSync(sqlitePath) ? bootstrapSecret(o.bootstrap) : undefined;
  const { backend, state, shared, key } = await openAgentState({
    storage: config.database,
    sqlitePath,
    keyFile: join(dir, 'gateway-state.key'),
    key: config.stateKey,
    keySetting: 'controller.state_key',
    tables: GATEWAY_TABLES,
    log,
    applicationName: 'cairn-gateway',
  });
  const domain = new GatewayDomain({
    state,
    log,
    now: o.now,
    tokenTtlSeconds: config.authTokenTtlSeconds,
    tokenStaleSeconds: config.authTokenStaleSeconds,
    recoveryToken: config.authToken,
    credentialHmacKey: credentialHmacKey(key),
    workers: o.workers,
  });
  const renewer = new VaultTokenRenewer(domain, o.credentialRenewIntervalMs);
  const hostSync = new PluginHostSync(domain);
  const reaper = new ExpiryReaper<AuthTokenDoc>({
    state,
    table: T.authTokens,
    idOf: (t) => t.id,
    expiresAt: (t) => tokenEndMs(t, config.authTokenStaleSeconds),
    now: o.now,
    log,
    intervalMs: o.reapIntervalMs,
  });
  let login: BootstrapLogin | undefined;
  const sweeper = new Periodic(
    () => domain.sessions.sweep(),
    o.sessionSweepIntervalMs ?? SESSION_SWEEP_INTERVAL_MS,
    (err) => log.warn({ err: err.message }, 'session sweep failed'),
  );
  const lead = async () => {
    const made = await bootstrapDomain(domain, o.bootstrap, secret);
    secret = undefined;
    const port = o.bootstrap?.dev?.targetPort;
    if (port !== undefined) await bootstrapDevTarget(domain, port);
    if (made) {
      login = made;
      o.onBootstrap?.(made);
    }
    reaper.start();
    renewer.start();
    hostSync.start();
    // Only the writer expires sessions; a follower sees the result through the feed.
    sweeper.start();
  };
  const follow = async () => {
    await sweeper.stop();
    await reaper.stop();
    await renewer.stop();
    await hostSync.stop();
  };
  let leadership: StateLeadership | undefined;
  const advertised = { address: '' };
  try {
    if (!shared) await lead();
    else leadership = shared.leadership({ address: () => advertised.address, onLeader: lead, onFollower: follow });
  } catch (err) {
    await backend.close();
    throw err;
  }
  return {
    domain,
    leadership,
    bootstrapped: () => login,
    startLeadership(address) {
      advertised.address = address;
      leadership?.start();
    },
    async close() {
      await sweeper.stop();
      await leadership?.stop();
      await reaper.stop();
      await renewer.stop();
      await hostSync.stop();
      await backend.close();
      if (temporary) rmSync(dir, { recursive: true, force: true });
    },
  };
}
