/**
 * The storage layer's public API (DESIGN.md "State"): the {@link Backend} contract, its
 * embedded SQLite implementation and its PostgreSQL implementation (several servers on
 * one database). The conformance suite (`backend.suite.ts`) is for
 * tests only and deliberately not exported here.
 *
 * @module
 */

export type { Backend, BackendOp } from './backend.js';
export { compareKeys } from './keys.js';
export { GroupCommitBackend } from './group-commit.js';
export type { CommitObservation } from './group-commit.js';
export { SqliteBackend } from './sqlite.js';
export type { SqliteBackendOptions, SqliteBackendStats } from './sqlite.js';
export { PostgresBackend, describeConnectionUrl, quoteTableName } from './postgres.js';
export type { PostgresBackendOptions, PostgresBackendStats, PostgresPoolStats } from './postgres.js';
export { BackendView, json, listRecursive, readJson } from './view.js';
export { StateConflict, StateStore, StateStoreFailed, StateStoreReadOnly } from './state.js';
export type { ChangeBatch, Indexed, StateChange, StateCodec, StateStoreOptions, TableSpec, Txn } from './state.js';
export { StateLeadership } from './leadership.js';
export { openAgentState } from './agent-state.js';
export { ExpiryReaper } from './expiry.js';
export type { ExpiryReaperOptions } from './expiry.js';
export type { AgentState, AgentStateOptions } from './agent-state.js';
export type { Leadership, StateLeadershipOptions } from './leadership.js';
export type { BackendChange } from './pg-listen.js';
export { aesGcmCodec } from './aead-codec.js';
export { decodeStateKey, stateKeyFingerprint } from './state-key.js';
