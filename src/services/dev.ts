/**
 * `cairn dev`: every service in one process on the embedded default (SQLite files in a
 * data directory, plain HTTP on loopback), ready to use with no other setup.
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startHostpathPlugin, type HostpathPlugin } from '../kernel/csi/index.js';
import type { UiServices } from '../kernel/http/index.js';
import { createLogger, type Logger } from '../kernel/log/logger.js';
import { SqliteBackend } from '../kernel/store/index.js';
import { writeFileDurably } from '../kernel/util/durable-file.js';
import { logVersion } from '../kernel/version/index.js';
import { MeshClient } from '../sdk/mesh.js';
import { SecretsClient } from '../sdk/secrets.js';
import { devGatewayConfig, type DevGatewayAddresses } from './gateway/dev-config.js';
import { startGateway } from './gateway/server.js';
import { DEV_WORKLOADS, wireDevWorkloads } from './dev-workloads.js';
import { DEV_TARGET_ID } from './gateway/domain/bootstrap-dev.js';
import { startMeshAgent } from './mesh/agent.js';
import { devMeshConfig } from './mesh/config.js';
import { startSchedAgent, type SchedAgent } from './sched/agent.js';
import { seedNodeIdentity } from './sched/client/client-state.js';
import { T } from './sched/state.js';
import { devClientConfig, devSchedConfig } from './sched/config.js';
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
  /** `host:port` (UDP and TCP) of the discovery service's DNS server (CLI default `127.0.0.1:8600`); absent: none. */
  readonly meshDnsAddress?: string;
  /** `host:port` of the scheduler service (CLI default `127.0.0.1:4646`). */
  readonly schedAddress: string;
  readonly log?: Logger;
}

/** The running dev services. */
export interface DevHandle {
  /** `uiUrl`: the web UI, which reaches all four services through the secrets listener. */
  readonly secrets: { readonly url: string; readonly rootToken: string; readonly uiUrl: string };
  /** The discovery service's HTTP API; the root token is its initial management token. */
  readonly mesh: { readonly url: string; readonly dnsAddress?: string };
  /** The scheduler service's HTTP API; the root token is its management token. */
  readonly sched: { readonly url: string };
  /** The CSI plugin the scheduler is configured with (see {@link DevCsi}). */
  readonly csi: DevCsi;
  /** Where tasks log in with their workload identities (dev-workloads.ts). */
  readonly workloads: typeof DEV_WORKLOADS;
  /** The gateway: api and ops URLs, the proxy and cluster `host:port`, the api token. */
  /**
   * `token` is the controller's recovery credential; `login` the admin login the controller
   * bootstrapped with the reference's dev values (auth method `ampw_1234567890`, `admin` /
   * `password`).
   */
  readonly gateway: {
    readonly apiUrl: string;
    readonly opsUrl: string;
    readonly proxyAddress: string;
    readonly clusterAddress: string;
    readonly token: string;
    readonly login: { readonly authMethodId: string; readonly loginName: string; readonly password: string };
    /** The dev target (`ttcp_1234567890`): the secrets service through the gateway. */
    readonly targetId: string;
  };
  close(): Promise<void>;
}

/**
 * The in-process hostpath CSI plugin of `cairn dev`: plugin `pluginId` (a monolith: controller
 * and node) on unix socket `socket`, volumes as directories under `root`, serving the
 * registered dev node `nodeId` of the scheduler.
 */
interface DevCsi {
  readonly pluginId: string;
  /** Absolute path of the plugin's unix socket: `<dataDir>/csi/hostpath.sock`. */
  readonly socket: string;
  /** Absolute path of its volumes: `<dataDir>/csi/volumes`. */
  readonly root: string;
  /** The scheduler node (a UUID, kept across restarts in `<dataDir>/csi/dev-node.json`). */
  readonly nodeId: string;
}

/** ID of the dev CSI plugin. */
const DEV_CSI_PLUGIN_ID = 'hostpath';

/** The dev node's identity: read from `<csiDir>/dev-node.json`, made (mode 0600) on first start. */
function devNodeIdentity(csiDir: string): { ID: string; SecretID: string } {
  const file = join(csiDir, 'dev-node.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { ID?: unknown; SecretID?: unknown };
    if (typeof saved.ID === 'string' && typeof saved.SecretID === 'string') return { ID: saved.ID, SecretID: saved.SecretID };
  }
  const made = { ID: randomUUID(), SecretID: randomUUID() };
  writeFileDurably(file, JSON.stringify(made) + '\n');
  return made;
}

/**
 * Waits until the dev client (the scheduler's client agent, registering the dev node with its
 * fingerprint and drivers) has registered, then runs a plugin probe round so the node's CSI
 * maps and the plugin's health are written before the banner is printed.
 * @throws Error `dev node registration timed out` after 30 s.
 */
async function devNodeRegistered(sched: SchedAgent, nodeId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!sched.state.get(T.nodes, nodeId)) {
    if (Date.now() > deadline) throw new Error('dev node registration timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
  await sched.plugins.probeNow();
}

/**
 * Initialises (one share, threshold one) and unseals the dev secrets service. The single
 * unseal key is kept in `<dataDir>/dev-unseal-key` (mode 0600) so a restart needs no
 * steps: acceptable only in dev mode, and the CLI says so loudly. The key file is written
 * durably **before** the initialisation is stored, so a first start killed at any moment
 * leaves a data directory that starts again (issue 14 item 4). Errors when the data
 * directory was initialised without dev mode (its key is not there).
 */
async function unsealDev(node: SecretsNode, dataDir: string): Promise<void> {
  const keyFile = join(dataDir, 'dev-unseal-key');
  if (!(await node.seal.checkInitialized())) {
    // A key file from a start killed before the init was stored is replaced here.
    const init = await node.initialize(1, 1, (r) => {
      writeFileDurably(keyFile, r.keys[0] + '\n');
    });
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
 * root token is the management token of both). The scheduler gets a hostpath CSI plugin
 * (monolith) started in-process on `<dataDir>/csi/hostpath.sock` with its volumes in
 * `<dataDir>/csi/volumes` (see {@link DevCsi}), serving a dev node registered at start, so
 * every volume endpoint works out of the box. On first start of a data directory the secrets service gets
 * a KV v2 mount at `secret/` (reference/secrets.md §2.1, dev server). Once all run, the tasks'
 * workload identities are wired to the secrets and discovery services (dev-workloads.ts: JWT
 * auth methods trusting the scheduler's JWKS, roles, policies, binding rules; idempotent) and
 * the dev client's tasks log in there (`vault` and `consul` client settings). Every start makes
 * a root token (or reuses `rootTokenId` when it already exists), which the caller prints
 * once: tokens are stored hashed and cannot be shown again.
 */
export async function startDev(options: DevOptions): Promise<DevHandle> {
  const log = options.log ?? createLogger('info');
  logVersion(log);
  const backend = SqliteBackend.open({ path: join(options.dataDir, 'secrets.db') });
  // The UI on the secrets listener reaches the other services through it once they run.
  let others: UiServices = {};
  const ui = { self: 'secrets' as const, others: () => others };
  const secrets = await startSecretsService({ backend, listeners: [{ address: options.secretsAddress }], log, ui, reopenAuditOnSighup: true });
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
    const gateway = await startGateway({
      config: devGatewayConfig(options.gatewayAddresses, gatewayToken, join(options.dataDir, 'gateway')),
      log,
      bootstrap: { dev: { password: DEV_GATEWAY_LOGIN.password, targetPort: Number(new URL(secrets.listeners[0].url).port || 80) } },
    });
    const mesh = await startMeshAgent({
      config: devMeshConfig({
        dataDir: join(options.dataDir, 'mesh'),
        httpAddress: options.meshAddress,
        rootToken: root.id,
        dnsAddress: options.meshDnsAddress,
      }),
      log,
      replaceInitialManagement: true,
    }).catch(async (err) => {
      gateway.force();
      await gateway.shutdown();
      throw err;
    });
    let plugin: HostpathPlugin | undefined;
    let sched: SchedAgent | undefined;
    try {
      const csiDir = resolve(options.dataDir, 'csi');
      mkdirSync(csiDir, { recursive: true, mode: 0o700 });
      const node = devNodeIdentity(csiDir);
      const csi: DevCsi = { pluginId: DEV_CSI_PLUGIN_ID, socket: join(csiDir, 'hostpath.sock'), root: join(csiDir, 'volumes'), nodeId: node.ID };
      plugin = await startHostpathPlugin({ socket: csi.socket, root: csi.root, nodeId: `cairn-dev-${node.ID.slice(0, 8)}`, log });
      // The client beside the scheduler is the dev node (raw_exec enabled, so the tour can run a job).
      const schedDir = join(options.dataDir, 'sched');
      const workloads = {
        secretsAddress: secrets.listeners[0].url,
        jwtAuthBackendPath: DEV_WORKLOADS.secretsAuthPath,
        authMethod: DEV_WORKLOADS.meshAuthMethod,
      };
      const client = devClientConfig(schedDir, root.id, { meshAddress: mesh.url, workloads });
      seedNodeIdentity(client.stateDir, node);
      sched = await startSchedAgent({
        config: {
          ...devSchedConfig({ dataDir: schedDir, httpAddress: options.schedAddress }),
          plugins: [{ id: DEV_CSI_PLUGIN_ID, socket: csi.socket, type: 'monolith', nodeId: node.ID }],
          client,
        },
        initialManagementToken: root.id,
        log,
      });
      await devNodeRegistered(sched, node.ID);
      await wireWorkloads({ secretsUrl: workloads.secretsAddress, meshUrl: mesh.url, schedUrl: sched.url, rootToken: root.id, log });
      const gatewayApi = gateway.listeners.find((l) => l.purpose === 'api')!.url;
      const gatewayOps = gateway.listeners.find((l) => l.purpose === 'ops')?.url;
      others = {
        mesh: hostPort(mesh.url),
        sched: hostPort(sched.url),
        gateway: hostPort(gatewayApi),
        ...(gatewayOps && { gateway_ops: hostPort(gatewayOps) }),
      };
      return devHandle({ secrets, root: root.id, gateway, gatewayToken, mesh, sched, plugin, csi });
    } catch (err) {
      await sched?.close();
      await plugin?.close();
      gateway.force();
      await Promise.all([gateway.shutdown(), mesh.close()]);
      throw err;
    }
  } catch (err) {
    await secrets.close();
    throw err;
  }
}

/**
 * Wires the tasks' workload identities to the secrets and discovery services (dev-workloads.ts)
 * through the SDK, as the root token, trusting the scheduler's JWKS at `schedUrl`.
 * @throws Error naming the wiring and the service's refusal (dev then does not start).
 */
async function wireWorkloads(o: { secretsUrl: string; meshUrl: string; schedUrl: string; rootToken: string; log: Logger }): Promise<void> {
  const secrets = new SecretsClient({ address: o.secretsUrl, token: o.rootToken });
  const mesh = new MeshClient({ address: o.meshUrl, token: o.rootToken });
  try {
    await wireDevWorkloads({ secrets, mesh, jwksUrl: `${o.schedUrl}/.well-known/jwks.json`, log: o.log });
  } catch (err) {
    throw new Error(`wiring workload identities to the secrets and discovery services: ${(err as Error).message}`, { cause: err });
  } finally {
    await Promise.all([secrets.close(), mesh.close()]);
  }
}

/** The gateway login `cairn dev` bootstraps (the reference's dev values; bootstrap.ts). */
const DEV_GATEWAY_LOGIN = { authMethodId: 'ampw_1234567890', loginName: 'admin', password: 'password' } as const;

/** `host:port` of a listener URL (`http://host:port`). */
function hostPort(url: string): string {
  return new URL(url).host;
}

/** What {@link devHandle} puts together. */
interface DevParts {
  readonly secrets: Awaited<ReturnType<typeof startSecretsService>>;
  readonly root: string;
  readonly gateway: Awaited<ReturnType<typeof startGateway>>;
  readonly gatewayToken: string;
  readonly mesh: Awaited<ReturnType<typeof startMeshAgent>>;
  readonly sched: SchedAgent;
  readonly plugin: HostpathPlugin;
  readonly csi: DevCsi;
}

/** The {@link DevHandle} of the started services; `close` stops the scheduler before its CSI plugin. */
function devHandle(p: DevParts): DevHandle {
  const { secrets, gateway, mesh, sched } = p;
  const url = (purpose: string) => gateway.listeners.find((l) => l.purpose === purpose)!.url;
  return {
    secrets: { url: secrets.listeners[0].url, rootToken: p.root, uiUrl: `${secrets.listeners[0].url}/ui/` },
    mesh: { url: mesh.url, dnsAddress: mesh.dnsAddress },
    sched: { url: sched.url },
    csi: p.csi,
    workloads: DEV_WORKLOADS,
    gateway: {
      apiUrl: url('api'),
      opsUrl: url('ops'),
      proxyAddress: url('proxy'),
      clusterAddress: url('cluster'),
      token: p.gatewayToken,
      login: { authMethodId: DEV_GATEWAY_LOGIN.authMethodId, loginName: DEV_GATEWAY_LOGIN.loginName, password: DEV_GATEWAY_LOGIN.password },
      targetId: DEV_TARGET_ID,
    },
    close: async () => {
      // Dev mode: no grace wait, open proxied connections are cut.
      gateway.force();
      await Promise.all([gateway.shutdown(), mesh.close(), sched.close().then(() => p.plugin.close()), secrets.close()]);
    },
  };
}
