/**
 * The client's `template { … }` block (inside `client { }`, as the reference's client
 * `template` block; issue 27 contract), with the reference's defaults (Nomad's client
 * `DefaultConfig`: `wait { min = "5s" max = "4m" }`, `block_query_wait = "5m"`; consul-template's
 * retry backoff 250 ms up to 1 m). Cairn has no retry `attempts`: sources retry for as long as
 * the task runs (reference/integration.md §8.3).
 *
 * ```hcl
 * client {
 *   template {
 *     wait { min = "5s"  max = "4m" }          # quiescence before a re-render (a template's own `wait` wins)
 *     block_query_wait     = "5m"             # longest blocking query on the discovery service
 *     secret_poll_interval = "5m"             # Cairn: how often a secret without a lease (KV v2) is read again
 *     consul_retry { backoff = "250ms"  max_backoff = "1m" }
 *     vault_retry  { backoff = "250ms"  max_backoff = "1m" }
 *   }
 * }
 * ```
 *
 * @module
 */
import { blockError, cfg, type BlockAt } from '../../../kernel/config/index.js';
import { parseGoDuration } from '../../../kernel/util/go-duration.js';

/** Exponential backoff of a service's failed reads, ms. */
interface RetryConfig {
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
}

/** The client's template settings (module doc); durations in ms. */
export interface ClientTemplateConfig {
  /** Quiescence window before a re-render. */
  readonly wait: { readonly minMs: number; readonly maxMs: number };
  readonly blockQueryWaitMs: number;
  readonly secretPollIntervalMs: number;
  readonly consulRetry: RetryConfig;
  readonly vaultRetry: RetryConfig;
}

/** The reference's defaults (module doc). */
export const DEFAULT_CLIENT_TEMPLATE_CONFIG: ClientTemplateConfig = {
  wait: { minMs: 5000, maxMs: 240_000 },
  blockQueryWaitMs: 300_000,
  secretPollIntervalMs: 300_000,
  consulRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
  vaultRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
};

const retryKeys = {
  backoff: cfg.string({ doc: 'first pause after a failed read, a Go duration; default 250ms' }),
  max_backoff: cfg.string({ doc: 'longest pause between retries, a Go duration; default 1m' }),
};

/** The block's schema (kernel/config/schema.ts). */
export const templateBlockKeys = {
  wait: cfg.block(
    { min: cfg.string({ doc: 'default 5s' }), max: cfg.string({ doc: 'default 4m' }) },
    { doc: 'quiescence before a template re-renders: at least min without a change, at most max after the first change' },
  ),
  block_query_wait: cfg.string({ doc: 'longest wait of one blocking query on the discovery service; default 5m' }),
  secret_poll_interval: cfg.string({ doc: 'Cairn: how often a secret without a lease (KV v2, a list) is read again; default 5m' }),
  consul_retry: cfg.block(retryKeys, { doc: 'retries of the discovery service (forever, with this backoff)' }),
  vault_retry: cfg.block(retryKeys, { doc: 'retries of the secrets service (forever, with this backoff)' }),
};

type RetryRaw = { readonly backoff?: string; readonly max_backoff?: string; readonly $at: BlockAt };

/** The parsed block as config.ts hands it over. */
export interface TemplateRaw {
  readonly wait?: { readonly min?: string; readonly max?: string; readonly $at: BlockAt };
  readonly block_query_wait?: string;
  readonly secret_poll_interval?: string;
  readonly consul_retry?: RetryRaw;
  readonly vault_retry?: RetryRaw;
  readonly $at: BlockAt;
}

/** `text` at `key` of the block at `at` in ms, or `dflt` when absent. @throws {ConfigError} not a duration, or negative. */
function ms(at: BlockAt, key: string, text: string | undefined, dflt: number): number {
  if (text === undefined) return dflt;
  const ns = parseGoDuration(text);
  if (typeof ns === 'string' || ns < 0) throw blockError(at, key, `"${key}": "${text}" is not a duration such as "5s"`);
  return ns / 1e6;
}

function retryFrom(r: RetryRaw | undefined, dflt: RetryConfig): RetryConfig {
  if (!r) return dflt;
  const backoffMs = ms(r.$at, 'backoff', r.backoff, dflt.backoffMs);
  const maxBackoffMs = ms(r.$at, 'max_backoff', r.max_backoff, dflt.maxBackoffMs);
  if (maxBackoffMs < backoffMs) throw blockError(r.$at, 'max_backoff', `"max_backoff" (${maxBackoffMs}ms) is below "backoff" (${backoffMs}ms)`);
  return { backoffMs, maxBackoffMs };
}

/** The client's template settings (module doc). @throws {ConfigError} at the key: a bad duration, `min` above `max`, `max_backoff` below `backoff`. */
export function templateConfigFrom(b: TemplateRaw | undefined): ClientTemplateConfig {
  const d = DEFAULT_CLIENT_TEMPLATE_CONFIG;
  if (!b) return d;
  const w = b.wait;
  const wait = w ? { minMs: ms(w.$at, 'min', w.min, d.wait.minMs), maxMs: ms(w.$at, 'max', w.max, d.wait.maxMs) } : d.wait;
  if (w && wait.maxMs < wait.minMs) throw blockError(w.$at, 'max', `"max" (${w.max ?? '4m'}) is below "min" (${w.min ?? '5s'})`);
  const blockQueryWaitMs = ms(b.$at, 'block_query_wait', b.block_query_wait, d.blockQueryWaitMs);
  if (blockQueryWaitMs === 0) throw blockError(b.$at, 'block_query_wait', '"block_query_wait" must be above 0');
  const secretPollIntervalMs = ms(b.$at, 'secret_poll_interval', b.secret_poll_interval, d.secretPollIntervalMs);
  if (secretPollIntervalMs === 0) throw blockError(b.$at, 'secret_poll_interval', '"secret_poll_interval" must be above 0');
  return {
    wait,
    blockQueryWaitMs,
    secretPollIntervalMs,
    consulRetry: retryFrom(b.consul_retry, d.consulRetry),
    vaultRetry: retryFrom(b.vault_retry, d.vaultRetry),
  };
}
