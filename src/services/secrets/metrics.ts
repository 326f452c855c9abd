/**
 * The secrets service's metrics (issue 14 item 7), served by `GET /v1/sys/metrics`
 * (sys/metrics.routes.ts, and without a token on listeners with
 * `telemetry { unauthenticated_metrics_access = true }`): the kernel's request and storage
 * metrics, plus seal state, HA role and the token count; and the reply of a scrape.
 *
 * @module
 */
import type { HttpResponse } from '../../kernel/http/index.js';
import { metricsFormat, observeBackend, SECRETS_FORMAT_RULES, ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Backend } from '../../kernel/store/index.js';
import type { SecretsCore } from './core.js';
import type { SealManager } from './seal/seal.js';

/**
 * What the metrics read of a server (node.ts `SecretsNode`, see its members). Named here:
 * the node makes its metrics.
 */
export interface MetricsSubject {
  readonly seal: Pick<SealManager, 'checkInitialized' | 'sealed'>;
  readonly activeCore: SecretsCore | undefined;
  readonly standby: boolean;
  readonly performanceStandby: boolean;
  readonly core: SecretsCore | undefined;
}

/** A registry with every metric of one secrets server reading `node` and its `backend`. */
export function secretsMetrics(node: MetricsSubject, backend: Backend): ServiceMetrics {
  const metrics = new ServiceMetrics();
  observeBackend(metrics, backend);
  const flag = (name: string, help: string, read: () => boolean | Promise<boolean>) =>
    metrics.gauge({ name, help, read: async () => ((await read()) ? 1 : 0) });
  flag('cairn_secrets_initialized', '1 once the storage holds the keys (sys/init was done), else 0.', () => node.seal.checkInitialized());
  flag('cairn_secrets_sealed', '1 while sealed, 0 once unsealed (Vault: the opposite of vault_core_unsealed).', () => node.seal.sealed);
  flag(
    'cairn_secrets_active',
    '1 when this server serves as the active one (unsealed; with ha_enabled, holding the lock), else 0.',
    () => node.activeCore !== undefined,
  );
  flag('cairn_secrets_standby', '1 for an unsealed HA standby (performance standbys included), else 0.', () => node.standby);
  flag('cairn_secrets_performance_standby', '1 for an HA standby serving reads itself (health 473), else 0.', () => node.performanceStandby);
  metrics.gauge({
    name: 'cairn_secrets_tokens',
    help: 'Tokens stored (expired ones until they are next looked up); 0 while there is no core (sealed, or a plain standby).',
    read: async () => (await node.core?.tokens.count()) ?? 0,
  });
  return metrics;
}

/**
 * The scrape in the format `format` (the query parameter) and `accept` (the header) ask
 * for, as a reply. @throws 400 `metric response format "<f>" unknown` for another `format`.
 */
export async function metricsReply(metrics: ServiceMetrics, format: string | null | undefined, accept: string | string[] | undefined): Promise<HttpResponse> {
  const scrape = await metrics.scrape(metricsFormat(format, accept, SECRETS_FORMAT_RULES));
  return { status: 200, headers: { 'Content-Type': scrape.contentType }, body: scrape.body };
}
