/**
 * The gateway of `cairn dev` (services/dev.ts): its configuration built in code, with no
 * file to read, in the same shape as a parsed config file (config.ts).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_PORTS, withPort, type GatewayServerConfig, type ListenerPurpose } from './config.js';

/** Listen addresses (`host:port`, port 0 picks one) of the dev gateway, by purpose. */
export type DevGatewayAddresses = Readonly<Record<ListenerPurpose, string>>;

/**
 * The gateway of `cairn dev`: a controller and a worker in one process, plain listeners
 * at `addresses`, one ops listener answering both `/health` and `/health?worker_info=1`
 * (issue 4 scope 6), no shutdown wait, `authToken` on the api (the recovery credential), a
 * random worker credential, the controller's SQLite state in `dataDir`.
 * @throws {Error} naming the address when one is not `host:port`.
 */
export function devGatewayConfig(addresses: DevGatewayAddresses, authToken: string, dataDir?: string): GatewayServerConfig {
  const purposes: readonly ListenerPurpose[] = ['api', 'cluster', 'proxy', 'ops'];
  // The worker is in the same process: a fresh random credential keeps others off the cluster port.
  const workerAuthToken = randomBytes(24).toString('base64url');
  return {
    file: 'cairn dev',
    controller: {
      name: 'dev-controller',
      gracefulShutdownWaitMs: 0,
      authToken,
      workerAuthToken,
      dataDir,
      authTokenTtlSeconds: 7 * 24 * 3600,
      authTokenStaleSeconds: 24 * 3600,
    },
    worker: { name: 'dev-worker', initialUpstreams: [], workerAuthToken, tags: {} },
    listeners: purposes.map((purpose) => ({ purpose, address: withPort(addresses[purpose], DEFAULT_PORTS[purpose]) })),
    healthEnabled: true,
  };
}
