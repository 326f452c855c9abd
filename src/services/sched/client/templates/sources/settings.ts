/**
 * The client agent's settings for template data sources (its `template {}` block:
 * `block_query_wait`, `secret_poll_interval`, `consul_retry`, `vault_retry`; contract of
 * issue 27), with the reference's defaults (Nomad client `template` block; consul-template's
 * retry: backoff 250 ms doubling to at most 1 min). Unlike the reference, there is no
 * `attempts`: Cairn retries for as long as the watch lasts (reference/integration.md §8.3:
 * an outage must never stop a running task).
 *
 * @module
 */

/** Exponential backoff of one service's failed attempts: `backoffMs` × 2^(attempt−1), at most `maxBackoffMs`. */
export interface RetrySettings {
  /** First pause after a failure, ms (reference `backoff`, default 250 ms). */
  readonly backoffMs: number;
  /** Longest pause, ms (reference `max_backoff`, default 1 min). */
  readonly maxBackoffMs: number;
}

/** How a task's template sources query the discovery and secrets services. */
export interface TemplateSourceSettings {
  /** Longest wait of one blocking query, ms (reference client `template.block_query_wait`, default 5 min). */
  readonly blockQueryWaitMs: number;
  /** How often a secret without a lease (KV v2, a list) is read again, ms (Cairn's `secret_poll_interval`, default 5 min). */
  readonly secretPollIntervalMs: number;
  /** Retries of the discovery service (reference `consul_retry`). */
  readonly consulRetry: RetrySettings;
  /** Retries of the secrets service (reference `vault_retry`). */
  readonly vaultRetry: RetrySettings;
}

/** The reference's defaults (module doc). */
export const DEFAULT_TEMPLATE_SOURCE_SETTINGS: TemplateSourceSettings = {
  blockQueryWaitMs: 5 * 60_000,
  secretPollIntervalMs: 5 * 60_000,
  consulRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
  vaultRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
};
