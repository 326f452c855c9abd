/**
 * The scheduler's signing keyring (issue 27 scope 1; reference/integration.md §4): root keys
 * (root-key.ts) in the state, the JWKS they publish, and signing and checking workload
 * identity JWTs with them.
 *
 * Only the leader writes it ({@link Keyring.start} runs in the agent's leader work, so on
 * shared storage one server at a time): at start it makes an active key if there is none;
 * then every `root_key_gc_interval` it
 * 1. promotes a `prepublished` key whose `PublishTime` has come (the active one turns
 *    `inactive`: still published, no longer signing);
 * 2. pre-publishes the next key once the active one is half `root_key_rotation_threshold`
 *    old, with `PublishTime` = when the active one reaches the threshold, so verifiers have
 *    fetched it before anything is signed with it;
 * 3. collects retired keys no token that may still be used needs (collect.ts).
 *
 * Every server reads it (signing at plan apply, checking identities presented as tokens);
 * the private keys are parsed once per key and kept in memory.
 *
 * @module
 */
import type { KeyObject } from 'node:crypto';
import { CairnError } from '../../../kernel/http/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import type { Indexed, StateStore, Txn } from '../../../kernel/store/index.js';
import type { KeyringSettings } from '../config.js';
import { T } from '../state.js';
import { collectableKeys } from './collect.js';
import { readJwt, signJwt, type ReadJwt } from './jwt.js';
import { loadKey, newRootKey, publicJwks, type LoadedKey, type RootKeyDoc, type SigningAlg } from './root-key.js';

/** The reference's defaults (reference/integration.md §4), in ms. */
const DEFAULTS = { rotationThresholdMs: 720 * 3600_000, gcThresholdMs: 3600_000, gcIntervalMs: 10 * 60_000 } as const;

const NS_PER_MS = 1_000_000;

/** A stored root key. */
export type StoredKey = RootKeyDoc & Indexed;

/** Options of {@link Keyring}. */
export interface KeyringOptions {
  readonly state: StateStore;
  readonly settings?: KeyringSettings;
  /** Clock in epoch ms. */
  readonly now: () => number;
  readonly log: Logger;
}

/** The keyring of one server; see the module doc. */
export class Keyring {
  private readonly loaded = new Map<string, LoadedKey>();
  private jwksAt = -1;
  private jwksDoc: { keys: Record<string, unknown>[] } = { keys: [] };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** ms. */
  readonly rotationThresholdMs: number;
  private readonly gcThresholdMs: number;
  private readonly gcIntervalMs: number;

  constructor(private readonly o: KeyringOptions) {
    this.rotationThresholdMs = o.settings?.rotationThresholdMs ?? DEFAULTS.rotationThresholdMs;
    this.gcThresholdMs = o.settings?.gcThresholdMs ?? DEFAULTS.gcThresholdMs;
    this.gcIntervalMs = o.settings?.gcIntervalMs ?? DEFAULTS.gcIntervalMs;
  }

  /** `server.oidc_issuer`, the identities' `iss`; undefined when unset. */
  get issuer(): string | undefined {
    return this.o.settings?.oidcIssuer;
  }

  /** Every stored key, oldest first. */
  keys(): StoredKey[] {
    return this.o.state.list<RootKeyDoc>(T.rootKeys).sort((a, b) => a.CreateTime - b.CreateTime || a.KeyID.localeCompare(b.KeyID));
  }

  /** The key that signs now; undefined before the leader made one. */
  active(): StoredKey | undefined {
    return this.keys().find((k) => k.State === 'active');
  }

  /**
   * The JWKS (`{"keys":[…]}`): two entries (RS256, EdDSA) per stored key — prepublished,
   * active and retired ones, so a token stays verifiable until its key is collected. Built
   * again only when the keyring table changed.
   */
  jwks(): { keys: Record<string, unknown>[] } {
    const at = this.o.state.tableIndex(T.rootKeys);
    if (at !== this.jwksAt) {
      const keys = this.keys();
      this.jwksDoc = { keys: keys.flatMap((k) => publicJwks(this.load(k))) };
      this.jwksAt = at;
      // Collected keys leave memory too.
      const ids = new Set(keys.map((k) => k.KeyID));
      for (const id of this.loaded.keys()) if (!ids.has(id)) this.loaded.delete(id);
    }
    return this.jwksDoc;
  }

  /**
   * Signs `claims` with the active key (`kid` its ID). @throws 500 `no active root key` before
   * the leader made one.
   */
  sign(claims: Readonly<Record<string, unknown>>, alg: SigningAlg = 'RS256'): { readonly jwt: string; readonly keyId: string } {
    const k = this.active();
    if (!k) throw new CairnError('internal', 'no active root key');
    const key = this.load(k);
    return { jwt: signJwt(claims, { alg, kid: k.KeyID, key: alg === 'RS256' ? key.rsa : key.ed }), keyId: k.KeyID };
  }

  /** `token`'s claims when one of the stored keys signed it (any state); undefined otherwise. Times are the caller's to check. */
  verify(token: string): ReadJwt | undefined {
    return readJwt(token, (kid, alg): KeyObject | undefined => {
      const doc = this.o.state.get<RootKeyDoc>(T.rootKeys, kid);
      if (!doc) return undefined;
      const key = this.load(doc);
      return alg === 'RS256' ? key.rsa : key.ed;
    });
  }

  /**
   * Leader: makes a new key (`PUT /v1/operator/keyring/rotate`). With `publishTimeNs` in the
   * future it is `prepublished` until then; otherwise it is active at once and the active one
   * is retired. Returns the new key as stored.
   */
  async rotate(publishTimeNs = 0): Promise<StoredKey> {
    const nowNs = this.o.now() * NS_PER_MS;
    const later = publishTimeNs > nowNs;
    const fresh = newRootKey(nowNs, later ? 'prepublished' : 'active', later ? publishTimeNs : 0);
    const { result } = await this.o.state.txn((tx) => {
      if (!later) this.retireActive(tx, nowNs);
      return tx.put(T.rootKeys, fresh.KeyID, fresh);
    });
    this.o.log.info({ key: fresh.KeyID, state: fresh.State }, 'keyring: new root key');
    return result;
  }

  /**
   * Leader: deletes key `id` (`DELETE /v1/operator/keyring/key/:id`). @throws 404 `root key
   * not found`; 400 `active root key cannot be deleted` (nothing would sign).
   */
  async remove(id: string): Promise<number> {
    const { index } = await this.o.state.txn((tx) => {
      const k = tx.get<RootKeyDoc>(T.rootKeys, id);
      if (!k) throw new CairnError('not_found', 'root key not found');
      if (k.State === 'active') throw new CairnError('bad_request', 'active root key cannot be deleted');
      tx.delete(T.rootKeys, id);
    });
    return index;
  }

  /** Leader: makes an active key unless there is one (the first leader's start). */
  async ensureActive(): Promise<void> {
    if (this.active()) return;
    const fresh = newRootKey(this.o.now() * NS_PER_MS, 'active');
    const { result } = await this.o.state.txn((tx) => {
      if (tx.list<RootKeyDoc>(T.rootKeys).some((k) => k.State === 'active')) return false;
      tx.put(T.rootKeys, fresh.KeyID, fresh);
      return true;
    });
    if (result) this.o.log.info({ key: fresh.KeyID }, 'keyring: made the first root key');
  }

  /** Leader: one round of promotion, pre-publication and collection (module doc). */
  async tick(): Promise<void> {
    const nowNs = this.o.now() * NS_PER_MS;
    const due = this.keys().find((k) => k.State === 'prepublished' && k.PublishTime <= nowNs);
    if (due) {
      await this.o.state.txn((tx) => {
        const k = tx.get<RootKeyDoc>(T.rootKeys, due.KeyID);
        if (k?.State !== 'prepublished') return;
        this.retireActive(tx, nowNs);
        tx.put(T.rootKeys, k.KeyID, { ...k, State: 'active' });
      });
      this.o.log.info({ key: due.KeyID }, 'keyring: a pre-published root key is now active');
    }
    const active = this.active();
    const thresholdNs = this.rotationThresholdMs * NS_PER_MS;
    if (active && !this.keys().some((k) => k.State === 'prepublished')) {
      const since = active.PublishTime || active.CreateTime;
      if (nowNs >= since + thresholdNs / 2) await this.rotate(since + thresholdNs);
    } else if (!active) await this.ensureActive();
    const gone = collectableKeys({ state: this.o.state, keys: this.keys(), nowNs, gcThresholdNs: this.gcThresholdMs * NS_PER_MS });
    if (gone.length > 0) {
      await this.o.state.txn((tx) => gone.forEach((id) => tx.delete(T.rootKeys, id)));
      this.o.log.info({ keys: gone }, 'keyring: collected retired root keys');
    }
  }

  /** Leader: ensures an active key, then runs {@link tick} every `root_key_gc_interval` until {@link stop}. */
  async start(): Promise<void> {
    await this.ensureActive();
    const loop = () => {
      this.timer = setTimeout(() => {
        this.running = this.tick()
          .catch((err: unknown) => this.o.log.warn({ err }, 'keyring: a keyring round failed; the next one tries again'))
          .finally(() => {
            this.running = undefined;
            if (this.timer) loop();
          });
      }, this.gcIntervalMs);
      this.timer.unref();
    };
    loop();
  }

  /** Stops the leader's rounds (stepping down, closing); waits for a round under way. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Sets the active key of `tx` inactive as of `nowNs`. */
  private retireActive(tx: Txn, nowNs: number): void {
    for (const k of tx.list<RootKeyDoc>(T.rootKeys)) if (k.State === 'active') tx.put(T.rootKeys, k.KeyID, { ...k, State: 'inactive', InactiveTime: nowNs });
  }

  /** The parsed private keys of `k`, kept per key ID (key material never changes). */
  private load(k: RootKeyDoc): LoadedKey {
    let key = this.loaded.get(k.KeyID);
    if (!key) {
      key = loadKey(k);
      this.loaded.set(k.KeyID, key);
    }
    return key;
  }
}
