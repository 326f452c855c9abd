/**
 * Where a discovery or scheduler agent keeps its state (DESIGN.md "State", "Growing past one
 * machine"): SQLite under its data directory (one agent), or a PostgreSQL table that several
 * agents of one datacenter / region share (`storage "postgresql"`, kernel/config/storage.ts),
 * with one leader (kernel/store/leadership.ts). Either way the documents are encrypted at
 * rest with the key file in the data directory; agents sharing a table need the same key
 * file (the first one creates it; copy it to the others).
 *
 * @module
 */
import type { AgentPostgresStorage } from '../config/storage.js';
import type { Logger } from '../log/logger.js';
import { aesGcmCodec, loadOrCreateKeyFile } from './aead-codec.js';
import type { Backend } from './backend.js';
import { StateLeadership, type StateLeadershipOptions } from './leadership.js';
import { PostgresBackend } from './postgres.js';
import { SqliteBackend } from './sqlite.js';
import { StateStore, type TableSpec } from './state.js';

/** Options of {@link openAgentState}. */
export interface AgentStateOptions {
  /** `storage "postgresql"`; absent: SQLite at {@link sqlitePath}. */
  readonly storage?: AgentPostgresStorage;
  readonly sqlitePath: string;
  /** The state key file (created when missing). */
  readonly keyFile: string;
  readonly tables: readonly TableSpec[];
  readonly log: Logger;
  /** `application_name` of the PostgreSQL connections, e.g. `cairn-mesh`. */
  readonly applicationName: string;
}

/** An opened agent state. */
export interface AgentState {
  readonly backend: Backend;
  readonly state: StateStore;
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
 *   never the password), a key file that does not decode the stored state (the message
 *   says to copy the key file), SQLite errors. Nothing stays open.
 */
export async function openAgentState(o: AgentStateOptions): Promise<AgentState> {
  if (!o.storage) {
    const codec = aesGcmCodec(loadOrCreateKeyFile(o.keyFile));
    const backend = SqliteBackend.open({ path: o.sqlitePath });
    try {
      return { backend, state: await StateStore.open(backend, o.tables, codec) };
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
    const codec = aesGcmCodec(loadOrCreateKeyFile(o.keyFile));
    const state = await StateStore.open(pg, o.tables, codec, { shared: true }).catch((err: Error) => {
      if (!/cannot decode/.test(err.message)) throw err;
      throw new Error(
        `the state in PostgreSQL table ${o.storage!.table} (${pg.target}) was written with another key than ${o.keyFile}: ` +
          `every agent sharing the table needs the same key file; copy it from an agent that already runs (${err.message})`,
      );
    });
    return {
      backend: pg,
      state,
      shared: { backend: pg, leadership: (l) => new StateLeadership({ ...l, backend: pg, store: state, log: o.log }) },
    };
  } catch (err) {
    await pg.close();
    throw err;
  }
}
