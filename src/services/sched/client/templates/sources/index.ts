/**
 * The template sources of one task (source.ts `TemplateSource`; issue 27 scope 5): discovery
 * data watched with blocking queries (kv.ts, health.ts, catalog.ts), secrets read, written
 * and listed, leased ones renewed and re-read before their lease ends, others re-read on a
 * timer (secrets.ts), leased ones kept in the task's `private/` across client restarts
 * (persisted.ts, resume.ts). Watches are shared by dependency (shared.ts); every failed attempt is
 * told to the listeners and retried with a backoff for as long as the watch lasts (retry.ts).
 *
 * ```ts
 * const source = createTemplateSource({ discovery: { address, token: () => resources.discoveryToken }, settings, log });
 * const stop = source.watch({ kind: 'kv.block', path: 'app/config' }, { value: (v) => …, error: (e) => … });
 * source.close();   // stops every watch: no timer or request left
 * ```
 *
 * @module
 */
import type { Logger } from '../../../../../kernel/log/logger.js';
import { describeDependency, type Dependency } from '../../../template/dependency.js';
import type { DependencyListener, TemplateSource } from '../source.js';
import { DiscoveryReader, type DiscoveryTarget } from './discovery.js';
import { kvKeyLoop, kvListLoop } from './kv.js';
import { healthServiceLoop } from './health.js';
import { catalogServicesLoop } from './catalog.js';
import { PersistedSecrets } from './persisted.js';
import { SecretsReader, type SecretsTarget } from './secrets-client.js';
import { secretLoop } from './secrets.js';
import type { RetrySettings, TemplateSourceSettings } from './settings.js';
import { WatchSet, type WatchLoop } from './shared.js';

export { TemplateSourceError } from './retry.js';

/** What {@link createTemplateSource} needs: the services a task's templates read, the client's settings and its log. */
export interface TemplateSourceOptions {
  /** The discovery service and the task's token (read at each call). Absent: discovery dependencies fail. */
  readonly discovery?: DiscoveryTarget;
  /** The secrets service, the task's token (read at each call) and namespace. Absent: secret dependencies fail. */
  readonly secrets?: SecretsTarget;
  readonly settings: TemplateSourceSettings;
  readonly log: Logger;
  /**
   * The task's `private/` directory: leased secrets read or written are kept there
   * (persisted.ts) and taken up again by the next run of the client agent. Absent: not kept.
   */
  readonly persistDir?: string;
}

/**
 * A task's template source (module doc). A dependency whose service is not configured
 * reports a `TemplateSourceError` (`refused`, 400) at each retry and never a value.
 * @throws Error when an address is not `http(s)://host:port`.
 */
export function createTemplateSource(o: TemplateSourceOptions): TemplateSource & { close(): void } {
  const watches = new WatchSet(o.log);
  const discovery = o.discovery && new DiscoveryReader(o.discovery);
  const secrets = o.secrets && new SecretsReader(o.secrets);
  const kept = o.persistDir === undefined ? undefined : new PersistedSecrets(o.persistDir, o.log);
  let closed = false;
  const loopFor = (d: Dependency): WatchLoop => {
    switch (d.kind) {
      case 'kv.block':
      case 'kv.get':
      case 'kv.exists':
        return discovery ? kvKeyLoop(d, discovery, o.settings) : unconfigured('discovery', o.settings.consulRetry);
      case 'kv.list':
        return discovery ? kvListLoop(d, discovery, o.settings) : unconfigured('discovery', o.settings.consulRetry);
      case 'health.service':
        return discovery ? healthServiceLoop(d, discovery, o.settings) : unconfigured('discovery', o.settings.consulRetry);
      case 'catalog.services':
        return discovery ? catalogServicesLoop(d, discovery, o.settings) : unconfigured('discovery', o.settings.consulRetry);
      case 'secret.read':
      case 'secret.write':
      case 'secret.list':
        return secrets ? secretLoop(d, secrets, o.settings, kept) : unconfigured('secrets', o.settings.vaultRetry);
    }
  };
  return {
    watch(d: Dependency, listener: DependencyListener): () => void {
      const key = describeDependency(d);
      const stop = watches.watch(key, () => loopFor(d), listener);
      return () => {
        stop();
        // Its watch stopped for good (no template uses it any more): its kept secret goes too. Not on
        // close(): the agent stopping keeps them for its next run.
        if (!closed && !watches.has(key)) kept?.delete(key);
      };
    },
    close(): void {
      closed = true;
      watches.close();
      discovery?.close();
      secrets?.close();
    },
  };
}

/** A watch that can never succeed: the service it needs is not configured on this client. It says so at each retry. */
function unconfigured(service: string, retry: RetrySettings): WatchLoop {
  return async (ctx) => {
    const err = Object.assign(new Error(`no ${service} service is configured on this client`), { status: 400 });
    for (let failures = 1; !ctx.signal.aborted; failures++) await ctx.failed(err, failures, retry);
  };
}
