/**
 * The secrets dependencies: `secret "path"` (`secret.read`: GET, `?version=N` kept as the
 * query), `secret "path" "k=v" …` (`secret.write`: its response is the value) and
 * `secrets "path"` (`secret.list`: LIST, the keys). The secrets service has no blocking
 * queries (reference: consul-template's `vault.*` dependencies), so:
 * - a leased response is kept (lease.ts: renewed, then read or written again before the
 *   lease ends);
 * - a read or a list without a lease (KV v2) is read again every `secretPollIntervalMs`
 *   (90–100 % of it: jitter), and hands over a value only when it changed (the request ID
 *   of each answer is left out of the comparison);
 * - a write without a lease is not repeated: writing again would issue a new value each
 *   time and re-render for nothing (reference/integration.md §8.2; the reference writes
 *   again every few minutes).
 *
 * A read that finds nothing (404, or a KV v2 version deleted) is missing: nothing is handed
 * over (the template keeps waiting and its task's events say for what), and it is read
 * again with the secrets retry's backoff. A list that finds nothing is `[]`.
 *
 * With a `PersistedSecrets` store (the task's `private/`), the latest leased response of a read
 * or a write is kept there with its lease, and a new watch takes it up while its lease lasts
 * (resume.ts): a client agent restart issues no new credential.
 *
 * @module
 */
import type { SecretResponse as SdkSecretResponse } from '../../../../../sdk/secrets.js';
import type { Dependency, SecretResponse } from '../../../template/dependency.js';
import { keepLease, leaseOf, type Renew } from './lease.js';
import type { PersistedSecrets } from './persisted.js';
import { resumeKept, type Resumed } from './resume.js';
import { pause, retryDelayMs } from './retry.js';
import type { SecretsReader } from './secrets-client.js';
import type { TemplateSourceSettings } from './settings.js';
import type { WatchContext, WatchLoop } from './shared.js';

/** One fetch: the value to hand over (undefined: missing) and the response whose lease is kept. */
type Fetch = () => Promise<{ value: unknown; response?: SecretResponse } | undefined>;

/** `path?version=2` → the path and its query. */
function splitQuery(path: string): { path: string; query?: Record<string, string> } {
  const at = path.indexOf('?');
  if (at < 0) return { path };
  return { path: path.slice(0, at), query: Object.fromEntries(new URLSearchParams(path.slice(at + 1))) };
}

/** A read that found nothing: no answer, no data, or a KV v2 version deleted or destroyed (`data.data` null). */
function missing(r: SdkSecretResponse | undefined): boolean {
  if (!r) return true;
  if (r.data === null && !r.auth) return true;
  const data = r.data as Record<string, unknown> | null;
  return data !== null && 'metadata' in data && 'data' in data && data.data === null;
}

/** What is compared to tell a change: the response without its request ID. */
function comparable(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const { request_id: _ignored, ...rest } = v as Record<string, unknown>;
  return rest;
}

/** The watch of a secrets dependency (module doc); `store`: where leased reads and writes are kept across restarts (none: not kept). */
export function secretLoop(
  d: Dependency & { kind: 'secret.read' | 'secret.write' | 'secret.list' },
  reader: SecretsReader,
  settings: TemplateSourceSettings,
  store?: PersistedSecrets,
): WatchLoop {
  const renew: Renew = async (lease) => {
    if (lease.kind === 'auth') {
      const r = await reader.as(lease.id).write('auth/token/renew-self', {});
      return r?.auth?.lease_duration ?? 0;
    }
    return (await reader.as().leases.renew(lease.id)).lease_duration;
  };
  let fetch: Fetch;
  switch (d.kind) {
    case 'secret.read': {
      const { path, query } = splitQuery(d.path);
      fetch = async () => {
        const r = await reader.as().read(path, query);
        return missing(r) ? undefined : { value: r, response: r };
      };
      break;
    }
    case 'secret.write':
      fetch = async () => {
        const r = await reader.as().write(d.path, d.data);
        return { value: r ?? {}, response: r };
      };
      break;
    case 'secret.list':
      fetch = async () => {
        const r = await reader.as().list(d.path);
        return { value: r?.data?.keys ?? [], response: r };
      };
      break;
  }
  // A list's keys are no credential: not kept.
  const kept = d.kind === 'secret.list' ? undefined : store;
  return (ctx) => runSecretLoop(ctx, fetch, renew, { settings, repeatUnleased: d.kind !== 'secret.write', store: kept });
}

interface LoopOptions {
  readonly settings: TemplateSourceSettings;
  /** Whether a response without a lease is fetched again every `secretPollIntervalMs`. */
  readonly repeatUnleased: boolean;
  readonly store?: PersistedSecrets;
}

async function runSecretLoop(ctx: WatchContext, fetch: Fetch, renew: Renew, o: LoopOptions): Promise<void> {
  let failures = 0;
  let misses = 0;
  let resumed: Resumed | undefined = o.store && (await resumeKept(ctx, o.store, renew));
  while (!ctx.signal.aborted) {
    let got: Awaited<ReturnType<Fetch>>;
    try {
      got = resumed ? { value: resumed.response, response: resumed.response } : await fetch();
    } catch (err) {
      if (ctx.signal.aborted) return;
      await ctx.failed(err, ++failures, o.settings.vaultRetry);
      continue;
    }
    failures = 0;
    if (ctx.signal.aborted) return;
    if (got === undefined) {
      await pause(retryDelayMs(++misses, o.settings.vaultRetry, 'unavailable'), ctx.signal);
      continue;
    }
    misses = 0;
    ctx.value(got.value, comparable(got.value));
    const lease = resumed?.lease ?? (got.response && leaseOf(got.response));
    resumed = undefined;
    if (lease) {
      const response = got.response!;
      // Kept with what is left of it from now (a resumed lease's too).
      o.store?.put(ctx.dependency, { response, lease, obtainedMs: Date.now() });
      await keepLease(ctx, lease, o.store ? keeping(ctx.dependency, o.store, response, renew) : renew, o.settings);
    } else {
      o.store?.delete(ctx.dependency);
      if (o.repeatUnleased) await pause(o.settings.secretPollIntervalMs * (0.9 + Math.random() * 0.1), ctx.signal);
      else return untilAborted(ctx.signal);
    }
  }
}

/** `renew`, keeping each renewal's new end in `store` (a restart then takes the lease up for as long as it was extended). */
function keeping(dependency: string, store: PersistedSecrets, response: SecretResponse, renew: Renew): Renew {
  return async (lease) => {
    const durationS = await renew(lease);
    store.put(dependency, { response, lease: { ...lease, durationS }, obtainedMs: Date.now() });
    return durationS;
  };
}

/** Resolves when `signal` aborts; holds no timer (nothing keeps the process alive). */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
