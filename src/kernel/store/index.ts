/**
 * The storage layer's public API (DESIGN.md "State"): the {@link Backend} contract, its
 * embedded SQLite implementation and its PostgreSQL implementation (several servers on
 * one database). The conformance suite (`backend.suite.ts`) is for
 * tests only and deliberately not exported here.
 *
 * @module
 */

export type { Backend, BackendOp } from './backend.js';
export { GroupCommitBackend } from './group-commit.js';
export { SqliteBackend } from './sqlite.js';
export { PostgresBackend, quoteTableName } from './postgres.js';
export { BackendView, json, listRecursive, readJson } from './view.js';
export { StateConflict, StateStore } from './state.js';
export type { ChangeBatch, Indexed, StateChange, StateCodec, TableSpec, Txn } from './state.js';
export { StateLeadership } from './leadership.js';
export { openAgentState } from './agent-state.js';
export { ExpiryReaper } from './expiry.js';
export type { AgentState, AgentStateOptions } from './agent-state.js';
export type { Leadership } from './leadership.js';
export type { BackendChange } from './pg-listen.js';
export { aesGcmCodec } from './aead-codec.js';
export { stateKeyFingerprint } from './state-key.js';
