/**
 * Benchmark server process (forked by bench/servers.ts, never run by hand): the server
 * under load runs here so it does not share an event loop with autocannon.
 *
 *   node --import tsx bench/child.ts <kind> <dataDir> [json options]
 *
 * IPC protocol (process.send):
 *   child → parent  { type: 'ready', url, token?, pid }   once listening
 *                   { type: 'error', message }            startup failed (then exits 1)
 *                   { type: 'stats', id, stats }          reply to a 'stats' request
 *   parent → child  { type: 'stats', id }                 ask for counters (e.g. SQLite commits)
 *                   { type: 'close' }                     close and exit 0
 *                   { type: <other>, id, … }              a kind's own request (the scheduler's
 *                                                         publish, seedVolumes, pluginVolumes,
 *                                                         evalTimes),
 *                                                         answered { type: 'done', id, result | error }
 * The child also exits when the IPC channel closes (parent died).
 *
 * To add a server kind, add an entry to `kinds` below and a name in servers.ts.
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { silentLogger } from '../src/kernel/log/logger.js';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresBackend, SqliteBackend, type Backend } from '../src/kernel/store/index.js';
import { startPgTestServer, TEST_PG_URL_ENV } from '../src/kernel/store/testdata/pg-cluster.js';
import { parseGatewayServerConfig } from '../src/services/gateway/config.js';
import { devGatewayConfig } from '../src/services/gateway/dev-config.js';
import { startGateway, type Gateway } from '../src/services/gateway/server.js';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { startMeshAgent } from '../src/services/mesh/agent.js';
import { defaultDnsConfig } from '../src/services/mesh/config.js';
import { startSchedAgent } from '../src/services/sched/agent.js';
import { devSchedConfig } from '../src/services/sched/config.js';
import { settledEvalTimes } from './sched-placement.js';
import { publishNodeUpdates } from './sched-publish.js';
import { makePluginVolumes, registerBenchNode, seedVolumes, startBenchPlugin, type BenchPlugin } from './sched-volume-seed.js';
import { startSecretsService } from '../src/services/secrets/service.js';
import { startDev } from '../src/services/dev.js';
import { startBareAes } from './secrets-transit.js';
import { listenBare } from './bare-server.js';

interface Started {
  readonly url: string;
  readonly token?: string;
  stats(): Record<string, unknown>;
  close(): Promise<void>;
  /** Kind-specific IPC requests (`{type: 'publish', …}` of the scheduler); replies `{type:'done', id, result}`. */
  request?(msg: Record<string, unknown>): Promise<unknown>;
}

/** The part of the seal-aware `SecretsNode` used here (absent before the seal existed). */
interface SealableNode {
  readonly core: unknown;
  initialize(shares: number, threshold: number): Promise<{ keys: string[]; root_token: string }>;
  unseal(share: string): Promise<void>;
}

type Kind = (dataDir: string, options: Record<string, unknown>) => Promise<Started>;

const kinds: Record<string, Kind> = {
  /**
   * Plain node:http baseline: one fixed small JSON reply. `options.bytes` pads the body to
   * that many bytes so it is the same size class as a KV v2 read reply.
   */
  async bare(_dataDir, options) {
    const bytes = typeof options.bytes === 'number' ? options.bytes : 0;
    const base = '{"hello":"world","pad":""}';
    const body = Buffer.from(bytes > base.length ? `{"hello":"world","pad":"${'x'.repeat(bytes - base.length)}"}` : base);
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      // Drain any body, then answer (same headers as the secrets service's JSON replies).
      req.resume();
      req.on('end', () => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'content-length': body.length,
        });
        res.end(body);
      });
    });
    return listenBare('bare', server, () => requests);
  },

  /** Plain node:http doing transit's AES-256-GCM encrypt of a JSON body (bench/secrets-transit.ts). */
  'bare-aes': () => startBareAes(),

  /** The secrets service on SQLite (synchronous=FULL, group commit), KV v2 at `secret/`, a root token. */
  async secrets(dataDir) {
    const backend = SqliteBackend.open({ path: join(dataDir, 'secrets.db') });
    return startBenchSecrets(
      backend,
      'sqlite',
      () => ({ ...backend.stats }),
      async () => undefined,
    );
  },

  /**
   * The `secrets` kind with one file audit device (`file/`, its file in the data dir,
   * default options: every secret HMAC'd): kv-read-audit measures the cost of auditing.
   */
  async 'secrets-audit'(dataDir) {
    const backend = SqliteBackend.open({ path: join(dataDir, 'secrets.db') });
    const started = await startBenchSecrets(
      backend,
      'sqlite',
      () => ({ ...backend.stats }),
      async () => undefined,
    );
    // Through the API, as an operator would (`sys/audit/file`, root token).
    const r = await fetch(`${started.url}/v1/sys/audit/file`, {
      method: 'PUT',
      headers: { 'X-Secrets-Token': started.token!, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'file', description: 'bench', options: { file_path: join(dataDir, 'audit.log') } }),
    });
    if (r.status !== 204) throw new Error(`secrets-audit: enabling the device answered ${r.status} ${await r.text()}`);
    return started;
  },

  /**
   * `cairn dev` (src/services/dev.ts): all four services in this process on free ports of
   * 127.0.0.1, with its dev client agent and KV v2 at `secret/`; `url` and `token` are the
   * secrets service's and its root token. Issue 30 measured its write growth this way.
   */
  async dev(dataDir) {
    const any = '127.0.0.1:0';
    const dev = await startDev({
      dataDir,
      secretsAddress: any,
      meshAddress: any,
      schedAddress: any,
      gatewayAddresses: { api: any, cluster: any, proxy: any, ops: any },
      log: silentLogger(),
    });
    return { url: dev.secrets.url, token: dev.secrets.rootToken, stats: () => ({}), close: () => dev.close() };
  },

  /**
   * The same secrets service on `PostgresBackend` (default options: table `cairn_kv`,
   * `max_parallel` 10, group commit, `synchronous_commit` on). The database: `BENCH_PG_URL`
   * or `CAIRN_TEST_PG_URL` when set (then a fresh table `cairn_bench_<hex>`, dropped on
   * close), else a throwaway cluster started here by the tests' helper
   * (src/kernel/store/testdata/pg-cluster.ts) with `fsync` and `full_page_writes` on, like
   * the SQLite kind's `synchronous=FULL`, stopped and removed on close.
   */
  async 'secrets-pg'() {
    const externalUrl = process.env.BENCH_PG_URL || process.env[TEST_PG_URL_ENV] || undefined;
    const server = await startPgTestServer(externalUrl ? { ...process.env, [TEST_PG_URL_ENV]: externalUrl } : process.env, { durable: true });
    const table = server.throwaway ? 'cairn_kv' : `cairn_bench_${randomBytes(6).toString('hex')}`;
    const dropTable = async (): Promise<void> => {
      if (server.throwaway) return;
      const client = new pg.Client({ connectionString: server.url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query(`DROP TABLE IF EXISTS "${table}"`);
      } finally {
        await client.end();
      }
    };
    let backend: PostgresBackend;
    try {
      backend = await PostgresBackend.open({ connectionUrl: server.url, table, applicationName: 'cairn-bench' });
    } catch (err) {
      await server.stop();
      throw err;
    }
    return startBenchSecrets(
      backend,
      'postgresql',
      () => ({ ...backend.stats }),
      async () => {
        try {
          await dropTable();
        } finally {
          await server.stop();
        }
      },
    ).catch(async (err: unknown) => {
      await backend.close().catch(() => undefined);
      await dropTable().catch(() => undefined);
      await server.stop();
      throw err;
    });
  },
};

/**
 * Starts the secrets service on `backend`: initialised with one key share and unsealed,
 * KV v2 mounted at `secret/`, a root token (reported as `token`). `afterClose` runs once
 * the service (and with it the backend) is closed.
 */
async function startBenchSecrets(
  backend: Backend,
  storageType: string,
  stats: () => Record<string, unknown>,
  afterClose: () => Promise<void>,
): Promise<Started> {
  const service = await startSecretsService({
    backend,
    listeners: [{ address: '127.0.0.1:0' }],
    log: silentLogger(),
    storageType,
  });
  // Services with a seal start sealed: initialise with one key share and unseal (as
  // test/helpers.ts does). Older trees without a seal have no `node`.
  const node = (service as { node?: SealableNode }).node;
  if (node && node.core === undefined) {
    const init = await node.initialize(1, 1);
    await node.unseal(init.keys[0]);
  }
  const core = service.core;
  await core.root.mountEngine('secret', { type: 'kv', options: { version: '2' } });
  const root = await core.tokens.create({ policies: ['root'], path: 'auth/token/root', now: core.now() });
  return {
    url: service.listeners[0].url,
    token: root.id,
    stats,
    close: async () => {
      try {
        await service.close();
      } finally {
        await afterClose();
      }
    },
  };
}

/** A running gateway as a bench server: `url` is its ops listener (or `cluster` address when it has none). */
function gatewayStarted(g: Gateway): Started {
  const ops = g.listeners.find((l) => l.purpose === 'ops');
  return {
    url: ops?.url ?? g.listeners.find((l) => l.purpose === 'cluster')!.url,
    stats: () => ({}),
    close: async () => {
      g.force();
      await g.shutdown();
    },
  };
}

const plain = (purpose: string, address = '127.0.0.1:0') => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "${address}"\n  tls_disable = true\n}\n`;

/** Gateway kinds (bench/gateway.ts). */
const gatewayKinds: Record<string, Kind> = {
  /** Controller and worker in one process, as `cairn dev` runs them. */
  async gateway() {
    const addresses = { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' };
    return gatewayStarted(await startGateway({ config: devGatewayConfig(addresses, 'bench'), log: silentLogger() }));
  },
  /** A controller alone; `options.cluster` fixes its cluster address (for restarts). */
  async 'gateway-controller'(_dataDir, options) {
    const text = `controller {}\n${plain('api')}${plain('cluster', String(options.cluster ?? '127.0.0.1:0'))}${plain('ops')}`;
    return gatewayStarted(await startGateway({ config: parseGatewayServerConfig(text, 'bench'), log: silentLogger() }));
  },
  /**
   * Controller and worker in one process on a SQLite state, with a TCP echo server in the
   * same process as the dev target `ttcp_1234567890` (bench/gateway-sessions.ts); `token`
   * is the recovery credential.
   */
  async 'gateway-sessions'(dataDir) {
    const echo = createNetServer((sock) => sock.pipe(sock));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const addresses = { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' };
    const g = await startGateway({
      config: devGatewayConfig(addresses, 'bench', dataDir),
      log: silentLogger(),
      bootstrap: { dev: { targetPort: (echo.address() as AddressInfo).port } },
    });
    return {
      url: g.listeners.find((l) => l.purpose === 'api')!.url,
      token: 'bench',
      stats: () => ({}),
      close: async () => {
        g.force();
        await g.shutdown();
        echo.close();
      },
    };
  },
  /** A worker alone dialling `options.upstream`, with the default 2 s status interval. */
  async 'gateway-worker'(_dataDir, options) {
    const text = `worker {\n  initial_upstreams = ["${String(options.upstream)}"]\n}\n${plain('proxy')}${plain('ops')}`;
    return gatewayStarted(await startGateway({ config: parseGatewayServerConfig(text, 'bench'), log: silentLogger() }));
  },
};
Object.assign(kinds, gatewayKinds);

/** Discovery-service kinds (bench/mesh.ts). */
const meshKinds: Record<string, Kind> = {
  /**
   * A discovery-service agent on SQLite (its own `mesh.db` in the data dir), ACLs on with
   * `default_policy = "deny"`, with the agent's default replication settings (5 min
   * blocking wait, 2 s first backoff). Without options: datacenter `dc1`, its own primary,
   * a fresh UUID as `initial_management` (reported as `token`). A secondary:
   * `options.datacenter` (e.g. `dc2`), `options.primary` = `host:port` of the primary
   * (`wan_addresses { dc1 = … }`), `options.replicationToken` = the primary's management
   * token, with token replication on; its `token` is that same token (a global token, it
   * works there once replicated). With `options.dns`, its DNS server runs on a free port
   * of 127.0.0.1, reading as the management token; IPC request `{type:'dnsAddress'}`
   * replies with its `host:port`. `options.maxConnections` raises the listener's cap (4,096 by
   * default) for the 5,000 blocking queries of mesh-blocking-wake.
   */
  async mesh(dataDir, options) {
    const datacenter = typeof options.datacenter === 'string' ? options.datacenter : 'dc1';
    const primary = datacenter === 'dc1';
    const management = primary ? randomUUID() : String(options.replicationToken);
    const agent = await startMeshAgent({
      config: {
        dataDir,
        datacenter,
        primaryDatacenter: 'dc1',
        nodeName: `bench-${datacenter}`,
        logLevel: 'warn',
        httpAddress: '127.0.0.1:0',
        wanAddresses: primary ? {} : { dc1: String(options.primary) },
        dns: options.dns === true ? defaultDnsConfig('127.0.0.1:0') : undefined,
        ...(typeof options.maxConnections === 'number' && { httpLimits: { maxConnections: options.maxConnections } }),
        acl: primary
          ? { enabled: true, defaultPolicy: 'deny', tokenReplication: false, initialManagement: management, dnsToken: management }
          : { enabled: true, defaultPolicy: 'deny', tokenReplication: true, replicationToken: management },
      },
      log: silentLogger(),
    });
    // The agent keeps its SqliteBackend inside its StateStore (not exposed); read its
    // counters for the table's commit columns when that field is there, else report none.
    const backend = (agent.state as unknown as { backend?: { stats?: Record<string, number> } }).backend;
    return {
      url: agent.url,
      token: management,
      stats: () => (backend?.stats ? { ...backend.stats } : {}),
      close: () => agent.close(),
      request: async (msg) => {
        if (msg.type === 'dnsAddress') return agent.dnsAddress;
        throw new Error(`unknown request ${String(msg.type)}`);
      },
    };
  },
};
Object.assign(kinds, meshKinds);

/** Scheduler kinds (bench/sched.ts). */
const schedKinds: Record<string, Kind> = {
  /**
   * A scheduler agent on SQLite, ACLs on, a fresh UUID as its management token (reported as
   * `token`), `options.eventBufferSize` batches of event buffer (default 100). With
   * `options.csi`, a hostpath CSI plugin (monolith, plugin ID `hostpath`) runs in this process
   * on `<dataDir>/hostpath.sock`, is configured as the agent's `plugin` block and serves a
   * registered node (bench/sched-volume-seed.ts).
   *
   * IPC requests (reply `{type:'done', id, result}`):
   * - `{type:'publish', eventsPerSec, seconds, batch}` writes node updates into its state at
   *   that rate (`batch` nodes per transaction, so `batch` Node events per committed batch),
   *   each node's `Meta.bench_ts` = the write's start in epoch ms (fractional), and replies
   *   with what it published;
   * - `{type:'seedVolumes', count, batch}` writes `count` CSI volume rows into its state,
   *   `batch` per transaction (`bench-vol-000000` …, a quarter with `Parameters.tier = gold`);
   * - `{type:'pluginVolumes', count}` (with `csi`) makes `count` volumes in the plugin and
   *   replies with their external IDs;
   * - `{type:'evalTimes', ids, timeoutMs}` waits
   *   until those evaluations finished and replies with their times (bench/sched-placement.ts).
   *
   * Stats include the process RSS and V8 heap in use, in bytes.
   */
  async sched(dataDir, options) {
    const management = randomUUID();
    const eventBufferSize = typeof options.eventBufferSize === 'number' ? options.eventBufferSize : 100;
    const csi: BenchPlugin | undefined = options.csi === true ? await startBenchPlugin(join(dataDir, 'hostpath.sock'), join(dataDir, 'hostpath')) : undefined;
    const agent = await startSchedAgent({
      config: { ...devSchedConfig({ dataDir, httpAddress: '127.0.0.1:0' }), logLevel: 'warn', eventBufferSize, plugins: csi ? [csi.config] : [] },
      initialManagementToken: management,
      log: silentLogger(),
    });
    if (csi) await registerBenchNode(agent, management);
    return {
      url: agent.url,
      token: management,
      stats: () => {
        const m = process.memoryUsage();
        return { rss: m.rss, heapUsed: m.heapUsed, subscriptions: agent.broker?.subscriptionCount ?? 0 };
      },
      close: async () => {
        await agent.close();
        await csi?.plugin.close();
      },
      request: async (msg) => {
        switch (msg.type) {
          case 'publish':
            return publishNodeUpdates(agent, Number(msg.eventsPerSec), Number(msg.seconds), Number(msg.batch));
          case 'seedVolumes':
            return seedVolumes(agent, Number(msg.count), Number(msg.batch));
          case 'evalTimes':
            return settledEvalTimes(agent, msg.ids as string[], Number(msg.timeoutMs));
          case 'pluginVolumes':
            if (!csi) throw new Error('pluginVolumes needs a scheduler started with options.csi');
            return makePluginVolumes(csi.config.socket, Number(msg.count));
          default:
            throw new Error(`unknown request ${String(msg.type)}`);
        }
      },
    };
  },
};
Object.assign(kinds, schedKinds);

function send(msg: unknown): void {
  if (process.send) process.send(msg);
}

async function main(): Promise<void> {
  const [kindName, dataDir, optionsJson] = process.argv.slice(2);
  const kind = kindName === undefined ? undefined : kinds[kindName];
  if (!kind || !dataDir || !process.send) {
    throw new Error(`usage (forked with IPC): child.ts <${Object.keys(kinds).join('|')}> <dataDir> [json]`);
  }
  const started = await kind(dataDir, optionsJson ? (JSON.parse(optionsJson) as Record<string, unknown>) : {});
  let closing = false;
  const shutdown = async (code: number): Promise<void> => {
    if (closing) return;
    closing = true;
    try {
      await started.close();
    } finally {
      // The parent removes it too; this covers a parent that died without cleaning up.
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(code);
    }
  };
  process.on('message', (msg: { type?: string; id?: number }) => {
    if (msg.type === 'stats') send({ type: 'stats', id: msg.id, stats: started.stats() });
    else if (msg.type === 'close') void shutdown(0);
    else if (started.request) {
      started.request(msg).then(
        (result) => send({ type: 'done', id: msg.id, result }),
        (err: unknown) => send({ type: 'done', id: msg.id, error: err instanceof Error ? err.message : String(err) }),
      );
    }
  });
  process.on('disconnect', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // Ctrl-C reaches the whole process group: close cleanly (secrets-pg stops its cluster).
  process.on('SIGINT', () => void shutdown(0));
  send({ type: 'ready', url: started.url, token: started.token, pid: process.pid });
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  console.error(`bench child: ${message}`);
  if (!process.send) process.exit(1);
  // Exit once the IPC message is flushed.
  process.send({ type: 'error', message }, undefined, {}, () => process.exit(1));
});
