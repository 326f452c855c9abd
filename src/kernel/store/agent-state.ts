/**
 * Where a discovery or scheduler agent keeps its state (DESIGN.md "State", "Growing past one
 * machine"): SQLite under its data directory (one agent), or a PostgreSQL table that several
 * agents of one datacenter / region share (`storage "postgresql"`, kernel/config/storage.ts),
 * with one leader (kernel/store/leadership.ts). Either way the documents are encrypted at
 * rest with the agent's state key (state-key.ts): the config's `encrypt`, else the key file
 * in the data directory. The storage remembers its key's fingerprint (first writer wins),
 * so an agent with another key refuses to start, saying what to copy where, and nothing is
 * left behind by it.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { AgentPostgresStorage } from '../config/storage.js';
import type { Logger } from '../log/logger.js';
import { writeFileDurably } from '../util/durable-file.js';
import { aesGcmCodec } from './aead-codec.js';
import type { Backend } from './backend.js';
import { StateLeadership, type StateLeadershipOptions } from './leadership.js';
import { PostgresBackend } from './postgres.js';
import { SqliteBackend } from './sqlite.js';
import { StateStore, type TableSpec } from './state.js';
import { newStateKey, readStateKeyFile, STATE_KEY_ROW, stateKeyFingerprint } from './state-key.js';

/** Options of {@link openAgentState}. */
export interface AgentStateOptions {
  /** `storage "postgresql"`; absent: SQLite at {@link sqlitePath}. */
  readonly storage?: AgentPostgresStorage;
  readonly sqlitePath: string;
  /**
   * The state key file: read when present, else made (when the storage has no key yet) —
   * unless {@link key} is given.
   */
  readonly keyFile: string;
  /** The state key from the config (32 bytes); the key file is then neither read nor made. */
  readonly key?: Uint8Array;
  /** The config setting that gives the key (`encrypt`, `server.encrypt`), for messages. */
  readonly keySetting: string;
  readonly tables: readonly TableSpec[];
  readonly log: Logger;
  /** `application_name` of the PostgreSQL connections, e.g. `cairn-mesh`. */
  readonly applicationName: string;
}

/** An opened agent state. */
export interface AgentState {
  readonly backend: Backend;
  readonly state: StateStore;
  /** The state key in use (32 bytes), for what the agent keeps beside the state encrypted with it. */
  readonly key: Uint8Array;
  /** Present on PostgreSQL: the state is shared; start {@link leadership} once the HTTP address is known. */
  readonly shared?: {
    readonly backend: PostgresBackend;
    /** Creates the leadership of this agent (not started). */
    leadership(o: Omit<StateLeadershipOptions, 'backend' | 'store' | 'log'>): StateLeadership;
  };
}

/**
 * Opens the backend and loads the state (read-only on PostgreSQL until this agent leads).
 * @throws Error: PostgreSQL unreachable or refusing (the message names `user@host:port/db`,
 *   never the password); a state key that is not the storage's — another key file, none at
 *   all while the storage has a key, or a key that lost the race on an empty table (the
 *   message names both fingerprints and says which file to copy where, or which setting to
 *   give); an unreadable key file; SQLite errors. Nothing stays open, and a key file this
 *   call made is removed again.
 */
export async function openAgentState(o: AgentStateOptions): Promise<AgentState> {
  if (!o.storage) {
    const backend = SqliteBackend.open({ path: o.sqlitePath });
    try {
      const claim = async (value: Uint8Array) => (await backend.get(STATE_KEY_ROW)) ?? (await backend.put(STATE_KEY_ROW, value), value);
      return { backend, ...(await openKeyed(o, backend, { where: o.sqlitePath, claim, shared: false })) };
    } catch (err) {
      await backend.close();
      throw err;
    }
  }
  const pg = await PostgresBackend.open({
    connectionUrl: o.storage.connectionUrl,
    table: o.storage.table,
    maxParallel: o.storage.maxParallel,
    log: o.log,
    applicationName: o.applicationName,
  });
  try {
    // Only once the database answered: a wrong connection_url leaves no key file behind.
    const where = `PostgreSQL table ${o.storage.table} (${pg.target})`;
    const { state, key } = await openKeyed(o, pg, { where, claim: (value) => pg.putIfAbsent(STATE_KEY_ROW, value), shared: true });
    return {
      backend: pg,
      state,
      key,
      shared: { backend: pg, leadership: (l) => new StateLeadership({ ...l, backend: pg, store: state, log: o.log }) },
    };
  } catch (err) {
    await pg.close();
    throw err;
  }
}

/**
 * Settles the state key against `backend`'s fingerprint row (see the module doc) and loads
 * the state with it, returning both. `claim` stores a fingerprint unless one is stored and returns the
 * stored one (first writer wins); `where` names the storage in messages; `shared`: several
 * agents write it (PostgreSQL).
 */
async function openKeyed(
  o: AgentStateOptions,
  backend: Backend,
  { where, claim, shared }: { where: string; claim: (fingerprint: Uint8Array) => Promise<Uint8Array>; shared: boolean },
): Promise<{ state: StateStore; key: Uint8Array }> {
  const stored = await backend.get(STATE_KEY_ROW);
  const storedPrint = stored && Buffer.from(stored).toString('utf8');
  const given = o.key ? Buffer.from(o.key) : readStateKeyFile(o.keyFile);
  const holder = (print?: string) =>
    print ? `the agent that made it (its log says "state key" with fingerprint ${print})` : 'an agent that already runs on it';
  const fix = (print?: string) =>
    o.key
      ? `set ${o.keySetting} to the key of ${holder(print)}: its ${o.keySetting}, or the ${basename(o.keyFile)} in its data directory, and start again`
      : `copy ${basename(o.keyFile)} from the data directory of ${holder(print)} to ${o.keyFile}, ` +
        `or give every agent that key with ${o.keySetting} = "env://NAME" or "file://PATH", and start again`;
  if (storedPrint !== undefined && !given) {
    throw new Error(
      `${where} is encrypted with the state key of fingerprint ${storedPrint}, and this agent has none (no ${o.keyFile}, no ${o.keySetting}): ${fix(storedPrint)}`,
    );
  }
  const source = o.key ? `the key of ${o.keySetting}` : o.keyFile;
  const mismatch = (print: string | undefined, ours: string, why = '') =>
    new Error(
      `${where} was written with another state key${print ? ` (fingerprint ${print})` : ''} than ${source} (fingerprint ${ours})${why}: ` +
        `every agent sharing it needs the same key; ${fix(print)}`,
    );
  let key = given;
  let made = false;
  if (!key) {
    const fresh = newStateKey();
    made = writeFileDurably(o.keyFile, fresh.text, { exclusive: true });
    // Not made: another process made the file a moment ago; its key is the one to use.
    key = made ? fresh.key : readStateKeyFile(o.keyFile)!;
  }
  const print = stateKeyFingerprint(key);
  try {
    if (storedPrint !== undefined && storedPrint !== print) throw mismatch(storedPrint, print);
    const state = await StateStore.open(backend, o.tables, aesGcmCodec(key), { shared }).catch((err: Error) => {
      // A state from before fingerprints were stored: only decoding tells whose key it has.
      if (storedPrint !== undefined || !/cannot decode/.test(err.message)) throw err;
      throw mismatch(undefined, print, ` (${err.message})`);
    });
    if (storedPrint === undefined) {
      const winner = Buffer.from(await claim(Buffer.from(print, 'utf8'))).toString('utf8');
      if (winner !== print) throw mismatch(winner, print, '; another agent started on the empty storage at the same moment and its key was stored first');
    }
    o.log.info({ fingerprint: print, source: o.key ? o.keySetting : o.keyFile, made }, 'state key');
    return { state, key };
  } catch (err) {
    if (made) rmSync(o.keyFile, { force: true });
    throw err;
  }
}
