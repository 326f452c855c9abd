/**
 * The template sources of one task (source.ts `TemplateSource`; issue 27 scope 5): discovery
 * data watched with blocking queries (kv.ts, health.ts, catalog.ts), secrets read, written
 * and listed, leased ones renewed and re-read before their lease ends, others re-read on a
 * timer (secrets.ts). Watches are shared by dependency (shared.ts); every failed attempt is
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
import { SecretsReader, type SecretsTarget } from './secrets-client.js';
import { secretLoop } from './secrets.js';
import type { TemplateSourceSettings } from './settings.js';
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
}

/**
 * A task's template source (module doc). A dependency whose service is not configured
 * reports `TemplateSourceError` … `refused` once and never a value.
 * @throws Error when an address is not `http(s)://host:port`.
 */
export function createTemplateSource(o: TemplateSourceOptions): TemplateSource & { close(): void } {
  const watches = new WatchSet(o.log);
  const discovery = o.discovery && new DiscoveryReader(o.discovery);
  const secrets = o.secrets && new SecretsReader(o.secrets);
  const loopFor = (d: Dependency): WatchLoop => {
    switch (d.kind) {
      case 'kv.block':
      case 'kv.get':
      case 'kv.exists':
        return discovery ? kvKeyLoop(d, discovery, o.settings) : unconfigured('discovery');
      case 'kv.list':
        return discovery ? kvListLoop(d, discovery, o.settings) : unconfigured('discovery');
      case 'health.service':
        return discovery ? healthServiceLoop(d, discovery, o.settings) : unconfigured('discovery');
      case 'catalog.services':
        return discovery ? catalogServicesLoop(d, discovery, o.settings) : unconfigured('discovery');
      case 'secret.read':
      case 'secret.write':
      case 'secret.list':
        return secrets ? secretLoop(d, secrets, o.settings) : unconfigured('secrets');
    }
  };
  return {
    watch(d: Dependency, listener: DependencyListener): () => void {
      return watches.watch(describeDependency(d), loopFor(d), listener);
    },
    close(): void {
      watches.close();
      discovery?.close();
      secrets?.close();
    },
  };
}

/** A watch that can never succeed: the service it needs is not configured on this client. */
function unconfigured(service: string): WatchLoop {
  return async (ctx) => {
    const err = Object.assign(new Error(`no ${service} service is configured on this client`), { status: 400 });
    await ctx.failed(err, 1, { backoffMs: 0, maxBackoffMs: 0 });
  };
}
