/**
 * `cairn dev`: every service in one process on the embedded default (SQLite files in a
 * data directory, plain HTTP on loopback), ready to use with no other setup.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger } from '../kernel/log/logger.js';
import { SqliteBackend } from '../kernel/store/index.js';
import { devGatewayConfig, type DevGatewayAddresses } from './gateway/config.js';
import { startGateway } from './gateway/server.js';
import { startMeshAgent } from './mesh/agent.js';
import { devMeshConfig } from './mesh/config.js';
import { startSchedAgent } from './sched/agent.js';
import { devSchedConfig } from './sched/config.js';
import { hashToken } from './secrets/token/store.js';
import type { SecretsNode } from './secrets/node.js';
import { startSecretsService } from './secrets/service.js';

/** Options of {@link startDev}. */
export interface DevOptions {
  /** Directory for the SQLite files; created when missing. */
  readonly dataDir: string;
  /** `host:port` of the secrets service (default in the CLI: `127.0.0.1:8200`). */
  readonly secretsAddress: string;
  /** A fixed root token (for scripts); otherwise a new random one is made at each start. */
  readonly rootTokenId?: string;
  /** Gateway listen addresses by purpose (CLI defaults 127.0.0.1:9200–9203). */
  readonly gatewayAddresses: DevGatewayAddresses;
  /** A fixed gateway api token (for scripts); otherwise a new random one at each start. */
  readonly gatewayToken?: string;
  /** `host:port` of the discovery service (CLI default `127.0.0.1:8500`). */
  readonly meshAddress: string;
  /** `host:port` of the scheduler service (CLI default `127.0.0.1:4646`). */
  readonly schedAddress: string;
  readonly log?: Logger;
}

/** The running dev services. */
export interface DevHandle {
  readonly secrets: { readonly url: string; readonly rootToken: string };
  /** The discovery service's HTTP API; the root token is its initial management token. */
  readonly mesh: { readonly url: string };
  /** The scheduler service's HTTP API; the root token is its management token. */
  readonly sched: { readonly url: string };
  /** The gateway: api and ops URLs, the proxy and cluster `host:port`, the api token. */
  readonly gateway: { readonly apiUrl: string; readonly opsUrl: string; readonly proxyAddress: string; readonly clusterAddress: string; readonly token: string };
  close(): Promise<void>;
}

/**
 * Initialises (one share, threshold one) and unseals the dev secrets service. The single
 * unseal key is kept in `<dataDir>/dev-unseal-key` (mode 0600) so a restart needs no
 * steps: acceptable only in dev mode, and the CLI says so loudly. Errors when the data
 * directory was initialised without dev mode (its key is not there).
 */
export async function unsealDev(node: SecretsNode, dataDir: string): Promise<void> {
  const keyFile = join(dataDir, 'dev-unseal-key');
  if (!node.seal.initialized) {
    const init = await node.initialize(1, 1);
    writeFileSync(keyFile, init.keys[0] + '\n', { mode: 0o600 });
    await node.unseal(init.keys[0]);
    // The dev root token is made below; the one init made must not linger unseen.
    await node.requireCore().tokens.revoke(hashToken(init.root_token));
    return;
  }
  if (!existsSync(keyFile)) throw new Error(`${dataDir} was initialised outside dev mode: unseal it with \`cairn operator unseal\` or use another -data-dir`);
  await node.unseal(readFileSync(keyFile, 'utf8').trim());
}

/**
 * Starts the dev services: the secrets service initialised and unsealed, a gateway
 * controller with one worker, and the discovery and scheduler services with ACLs on (the
 * root token is the management token of both). On first start of a data directory the secrets service gets
 * a KV v2 mount at `secret/` (reference/secrets.md §2.1, dev server). Every start makes
 * a root token (or reuses `rootTokenId` when it already exists), which the caller prints
 * once: tokens are stored hashed and cannot be shown again.
 */
export async function startDev(options: DevOptions): Promise<DevHandle> {
  const log = options.log ?? createLogger('info');
  const backend = SqliteBackend.open({ path: join(options.dataDir, 'secrets.db') });
  const secrets = await startSecretsService({ backend, listeners: [{ address: options.secretsAddress }], log });
  try {
    await unsealDev(secrets.node, options.dataDir);
    const { core } = secrets;
    const now = core.now();
    if (!core.root.mounts.get('secret/')) {
      await core.root.mountEngine('secret/', { type: 'kv', options: { version: '2' }, description: 'key/value secret storage' });
    }
    const existing = options.rootTokenId ? await core.tokens.lookup(options.rootTokenId, now) : undefined;
    const root =
      existing && existing.policies.includes('root')
        ? existing
        : await core.tokens.create({ policies: ['root'], id: options.rootTokenId, displayName: 'root', path: 'auth/token/root', now });
    const gatewayToken = options.gatewayToken ?? randomBytes(24).toString('base64url');
    const gateway = await startGateway({ config: devGatewayConfig(options.gatewayAddresses, gatewayToken), log });
    const mesh = await startMeshAgent({
      config: devMeshConfig({ dataDir: join(options.dataDir, 'mesh'), httpAddress: options.meshAddress, rootToken: root.id }),
      log,
      replaceInitialManagement: true,
    }).catch(async (err) => {
      gateway.force();
      await gateway.shutdown();
      throw err;
    });
    const sched = await startSchedAgent({
      config: devSchedConfig({ dataDir: join(options.dataDir, 'sched'), httpAddress: options.schedAddress }),
      initialManagementToken: root.id,
      log,
    }).catch(async (err) => {
      gateway.force();
      await Promise.all([gateway.shutdown(), mesh.close()]);
      throw err;
    });
    const url = (purpose: string) => gateway.listeners.find((l) => l.purpose === purpose)!.url;
    return {
      secrets: { url: secrets.listeners[0].url, rootToken: root.id },
      mesh: { url: mesh.url },
      sched: { url: sched.url },
      gateway: { apiUrl: url('api'), opsUrl: url('ops'), proxyAddress: url('proxy'), clusterAddress: url('cluster'), token: gatewayToken },
      close: async () => {
        // Dev mode: no grace wait, open proxied connections are cut.
        gateway.force();
        await Promise.all([gateway.shutdown(), mesh.close(), sched.close(), secrets.close()]);
      },
    };
  } catch (err) {
    await secrets.close();
    throw err;
  }
}
