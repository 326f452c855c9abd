/**
 * Initialising, unsealing and sealing (reference/secrets.md §3.1–§3.3, §7). The unseal
 * key is split with Shamir's scheme (`shamir-secret-sharing`, audited) and never stored;
 * it decrypts the root key, which decrypts the keyring behind the barrier. Sealed = no
 * key in memory.
 *
 * Layout (the only entries outside the barrier): `core/seal-config` (shares and
 * threshold), `core/root-key` (root key under the unseal key), `core/keyring` (keyring
 * under the root key), `core/init-claim` (which server's `sys/init` runs on a shared
 * storage: a random id and the time, no key material).
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
// The library checks for plain Uint8Array (not Buffer): convert at the boundary.
import { combine, split } from 'shamir-secret-sharing';
import { badRequest } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { BarrierBackend, keyringCodec, newKeyring, open, seal } from './barrier.js';

/** The stored seal configuration. */
export interface SealConfig {
  readonly type: 'shamir';
  readonly secret_shares: number;
  readonly secret_threshold: number;
}

/** The body of `sys/seal-status` and `sys/unseal` (reference/secrets.md §3.2). */
export interface SealStatus {
  type: 'shamir';
  initialized: boolean;
  sealed: boolean;
  t: number;
  n: number;
  progress: number;
  nonce: string;
  version: string;
  /** Build time of this binary, RFC 3339; `''` when unknown (kernel/version). */
  build_date: string;
  migration: false;
  recovery_seal: false;
  storage_type: string;
  cluster_name?: string;
  cluster_id?: string;
}

/** What `sys/init` returns: the unseal key shares (hex and base64). */
export interface InitResult {
  readonly keys: string[];
  readonly keys_base64: string[];
}

const KEY_BYTES = 32;

/**
 * How old (ms) another server's init claim must be, with no seal configuration stored,
 * before a `sys/init` takes it over: that server died between its claim and its keys
 * (storing them takes milliseconds, so a minute is far past any live initialisation).
 */
const STALE_INIT_CLAIM_MS = 60_000;

const INIT_CLAIM = 'core/init-claim';

/** The stored `core/init-claim`. */
interface InitClaim {
  readonly id: string;
  /** Epoch ms. */
  readonly at: number;
}

/** Tracks the seal state of one server and opens the barrier. */
export class SealManager {
  private config: SealConfig | undefined;
  private shares: Buffer[] = [];
  private nonce = '';
  private barrier: BarrierBackend | undefined;

  private constructor(
    private readonly storage: Backend,
    private readonly storageType: string,
    readonly version: string,
    readonly buildDate: string,
  ) {}

  /** Reads the seal configuration; the server starts sealed. */
  static async load(storage: Backend, o: { storageType: string; version: string; buildDate: string }): Promise<SealManager> {
    const m = new SealManager(storage, o.storageType, o.version, o.buildDate);
    m.config = json.decode<SealConfig>(await storage.get('core/seal-config'));
    return m;
  }

  /**
   * Whether the storage holds a seal configuration. Once true it is remembered; while false
   * the storage is read again at each call, because another server sharing it (PostgreSQL)
   * may have been initialised since this one started: `sys/init` through any server then
   * makes every server initialised and unsealable without a restart (the reference's
   * barrier `Initialized` reads storage the same way).
   * @throws the storage's error (unreachable database).
   */
  async checkInitialized(): Promise<boolean> {
    if (!this.config) this.config = json.decode<SealConfig>(await this.storage.get('core/seal-config'));
    return this.config !== undefined;
  }

  get sealed(): boolean {
    return this.barrier === undefined;
  }

  /** The barrier view of storage while unsealed, else undefined. */
  get unsealedStorage(): BarrierBackend | undefined {
    return this.barrier;
  }

  /**
   * Creates the keys and returns the unseal key shares; the server stays sealed.
   * `beforeStore` gets the shares before anything is stored: `cairn dev` keeps its one
   * share on disk first, so a crash can never leave storage initialised with the share lost.
   * Across servers sharing the storage, a claim ({@link claimInit}) lets exactly one of two
   * racing calls store its keys.
   * Errors (400, reference/secrets.md §3.1): already initialised (by this server or another
   * one sharing the storage), being initialised through another server, bad share counts;
   * `beforeStore`'s error (nothing stored).
   */
  async initialize(shares: number, threshold: number, beforeStore?: (result: InitResult) => void | Promise<void>): Promise<InitResult> {
    if (await this.checkInitialized()) throw badRequest('secrets service is already initialized');
    if (!Number.isInteger(shares) || shares < 1) throw badRequest('secret_shares: shares must be at least one');
    if (!Number.isInteger(threshold) || threshold < 1) throw badRequest('secret_threshold: threshold must be at least one');
    if (shares > 1 && threshold === 1) throw badRequest('secret_threshold: threshold must be greater than one for multiple shares');
    if (shares > 255) throw badRequest('secret_shares: shares must be less than 256');
    if (threshold > 255) throw badRequest('secret_threshold: threshold must be less than 256');
    if (threshold > shares) throw badRequest('secret_threshold: threshold cannot be larger than shares');

    const claim = await this.claimInit();
    const unsealKey = randomBytes(KEY_BYTES);
    const rootKey = randomBytes(KEY_BYTES);
    const config: SealConfig = { type: 'shamir', secret_shares: shares, secret_threshold: threshold };
    let stored = false;
    try {
      const parts = shares === 1 ? [Buffer.from(unsealKey)] : (await split(new Uint8Array(unsealKey), shares, threshold)).map((p) => Buffer.from(p));
      const result = { keys: parts.map((p) => p.toString('hex')), keys_base64: parts.map((p) => p.toString('base64')) };
      await beforeStore?.(result);
      await this.storage.batch([
        { key: 'core/root-key', value: seal(unsealKey, rootKey, 'core/root-key') },
        { key: 'core/keyring', value: seal(rootKey, keyringCodec.encode(newKeyring()), 'core/keyring') },
        { key: 'core/seal-config', value: json.encode(config) },
      ]);
      stored = true;
      this.config = config;
      return result;
    } finally {
      unsealKey.fill(0);
      rootKey.fill(0);
      // A failed init gives its claim back at once, so a retry need not wait for it to go stale.
      if (!stored && claim) await this.storage.delete(INIT_CLAIM).catch(() => undefined);
    }
  }

  /**
   * On storage several servers share (one with `putIfAbsent`), claims the initialisation
   * before any key exists: two `sys/init` calls through two servers at the same moment
   * would otherwise both answer 200, and the shares of the one stored first would open
   * nothing. Resolves with whether a claim was written (false: embedded storage, one process).
   * @throws 400 when another server holds a live claim, or finished initialising meanwhile;
   *   the storage's error.
   */
  private async claimInit(): Promise<boolean> {
    if (!this.storage.putIfAbsent) return false;
    const mine = json.encode({ id: randomUUID(), at: Date.now() } satisfies InitClaim);
    let held = await this.storage.putIfAbsent(INIT_CLAIM, mine);
    if (Buffer.from(held).equals(mine)) return true;
    if (await this.checkInitialized()) throw badRequest('secrets service is already initialized');
    const other = json.decode<InitClaim>(held);
    if (other && Date.now() - other.at < STALE_INIT_CLAIM_MS) {
      throw badRequest('secrets service is being initialized through another server; retry in a minute if that server stopped');
    }
    // A claim left by a server that died before storing its keys. Servers that see the same
    // stale claim race to take it over: one marker per stale claim (put-if-absent) picks one,
    // else each could delete the claim the other had just written and both would hold one.
    const takeover = await this.storage.putIfAbsent(`${INIT_CLAIM}-takeover/${other?.id ?? 'unreadable'}`, mine);
    if (!Buffer.from(takeover).equals(mine)) throw badRequest('secrets service is being initialized through another server');
    await this.storage.delete(INIT_CLAIM);
    held = await this.storage.putIfAbsent(INIT_CLAIM, mine);
    if (!Buffer.from(held).equals(mine)) throw badRequest('secrets service is being initialized through another server');
    return true;
  }

  /**
   * Adds one key share; opens the barrier when `threshold` distinct shares arrived.
   * A repeated share is ignored. Errors (400): not initialised, undecodable key, or the
   * shares do not reconstruct the unseal key (progress is reset). Not initialised is
   * checked against storage ({@link checkInitialized}).
   */
  async submitShare(encoded: string): Promise<boolean> {
    if (!(await this.checkInitialized()) || !this.config) throw badRequest('secrets service is not initialized');
    if (!this.sealed) return true;
    const share = decodeShare(encoded);
    if (!this.shares.some((s) => s.equals(share))) this.shares.push(share);
    if (!this.nonce) this.nonce = randomUUID();
    if (this.shares.length < this.config.secret_threshold) return false;
    const given = this.shares;
    this.resetProgress();
    try {
      const unsealKey = given.length === 1 ? given[0] : Buffer.from(await combine(given.map((g) => new Uint8Array(g))));
      const rootKey = open(unsealKey, (await this.storage.get('core/root-key'))!, 'core/root-key');
      const keyring = keyringCodec.decode(open(rootKey, (await this.storage.get('core/keyring'))!, 'core/keyring'));
      rootKey.fill(0);
      this.barrier = new BarrierBackend(this.storage, keyring);
      return true;
    } catch {
      // Wrong shares reconstruct a wrong key silently; GCM's tag is what tells.
      throw badRequest('unseal failed, invalid key');
    }
  }

  /** Discards the unseal progress (`reset: true`). Error (400) when already unsealed. */
  resetProgress(): void {
    this.shares = [];
    this.nonce = '';
  }

  /** Drops every key from memory. */
  seal(): void {
    this.barrier = undefined;
    this.resetProgress();
  }

  /** The `sys/seal-status` body (initialised as {@link checkInitialized} finds it). @throws the storage's error. */
  async status(cluster?: { name: string; id: string }): Promise<SealStatus> {
    const initialized = await this.checkInitialized();
    return {
      type: 'shamir',
      initialized,
      sealed: this.sealed,
      t: this.config?.secret_threshold ?? 0,
      n: this.config?.secret_shares ?? 0,
      progress: this.shares.length,
      nonce: this.nonce,
      version: this.version,
      build_date: this.buildDate,
      migration: false,
      recovery_seal: false,
      storage_type: this.storageType,
      ...(this.sealed || !cluster ? {} : { cluster_name: cluster.name, cluster_id: cluster.id }),
    };
  }
}

/**
 * A share as hex (tried first, when it decodes to a plausible length) or base64
 * (reference/secrets.md §3.2). Error (400) naming `key`.
 */
function decodeShare(s: string): Buffer {
  const t = s.trim();
  if (/^[0-9a-fA-F]+$/.test(t) && t.length % 2 === 0 && t.length / 2 >= 16 && t.length / 2 <= KEY_BYTES + 1) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(t)) {
    const b = Buffer.from(t, 'base64');
    if (b.length >= 16 && b.length <= KEY_BYTES + 1) return b;
  }
  throw badRequest("'key' must be a valid hex or base64 string");
}
