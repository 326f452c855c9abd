/**
 * `cairn dev`: starts every service in this process on the embedded store (the scheduler with
 * a hostpath CSI plugin, `hostpath`, on `<data-dir>/csi/hostpath.sock`), prints how to reach
 * it, and runs until SIGINT/SIGTERM (or `io.shutdown` aborts). The only client-side
 * command that starts services in-process (DESIGN.md "Rules of the house").
 *
 * @module
 */
import type { Command } from 'commander';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';

/** Adds `dev` to `program`. */
export function addDevCommand(app: App, program: Command): void {
  program
    .command('dev')
    .description('run all services in one process for development')
    .option('--data-dir <dir>', 'directory for the dev server data', './.cairn')
    .option('--dev-root-token-id <id>', 'use this root token instead of a random one')
    .option('--secrets-address <host:port>', 'listen address of the secrets service', '127.0.0.1:8200')
    .option('--gateway-api-address <host:port>', 'listen address of the gateway controller api', '127.0.0.1:9200')
    .option('--gateway-cluster-address <host:port>', 'listen address of the gateway controller for workers (gRPC)', '127.0.0.1:9201')
    .option('--gateway-proxy-address <host:port>', 'listen address of the gateway worker proxy', '127.0.0.1:9202')
    .option('--gateway-ops-address <host:port>', 'listen address of the gateway ops listener (/health, /metrics)', '127.0.0.1:9203')
    .option('--dev-gateway-token <token>', 'use this gateway api token instead of a random one')
    .option('--mesh-address <host:port>', 'listen address of the discovery service', '127.0.0.1:8500')
    .option('--mesh-dns-address <host:port>', "listen address (UDP and TCP) of the discovery service's DNS server", '127.0.0.1:8600')
    .option('--sched-address <host:port>', 'listen address of the scheduler service', '127.0.0.1:4646')
    .action(async (opts: DevFlags) => {
      app.exitCode = await runDev(app, opts);
    });
}

interface DevFlags {
  dataDir: string;
  devRootTokenId?: string;
  secretsAddress: string;
  gatewayApiAddress: string;
  gatewayClusterAddress: string;
  gatewayProxyAddress: string;
  gatewayOpsAddress: string;
  devGatewayToken?: string;
  meshAddress: string;
  meshDnsAddress: string;
  schedAddress: string;
}

async function runDev(app: App, opts: DevFlags): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { startDev } = await import('../../services/dev.js');
  const handle = await startDev({
    dataDir: opts.dataDir,
    secretsAddress: opts.secretsAddress,
    rootTokenId: opts.devRootTokenId,
    gatewayAddresses: { api: opts.gatewayApiAddress, cluster: opts.gatewayClusterAddress, proxy: opts.gatewayProxyAddress, ops: opts.gatewayOpsAddress },
    gatewayToken: opts.devGatewayToken,
    meshAddress: opts.meshAddress,
    meshDnsAddress: opts.meshDnsAddress,
    schedAddress: opts.schedAddress,
  });
  const { url, rootToken } = handle.secrets;
  const gw = handle.gateway;
  const out = (line: string) => app.io.stdout(`${line}\n`);
  out('==> Cairn dev server started.');
  out('');
  out(`    Secrets service: ${url}`);
  out(`    Root token:      ${rootToken}`);
  out(`    Web UI:          ${handle.secrets.uiUrl}   (all four services; log in with the root token)`);
  out('');
  out(`    Discovery:       ${handle.mesh.url}   (ACLs on; the root token is its management token)`);
  out(`    Discovery DNS:   ${handle.mesh.dnsAddress}   (UDP and TCP, domain cairn; answers as the root token)`);
  out(`    Scheduler:       ${handle.sched.url}   (ACLs on; the root token is its management token)`);
  out(`    CSI plugin:      ${handle.csi.pluginId} (monolith) at ${handle.csi.socket}`);
  out(`    CSI volumes:     ${handle.csi.root}   (served on dev node ${handle.csi.nodeId})`);
  out(
    `    Workload logins: secrets auth/${handle.workloads.secretsAuthPath} (role ${handle.workloads.secretsRole}), discovery auth method ${handle.workloads.meshAuthMethod}`,
  );
  out("                     (a job's tasks read secret/data/<namespace>/<job>/* with a vault {} block: no token in the job file)");
  out('');
  out(`    Gateway api:     ${gw.apiUrl}   (controller + one worker)`);
  out(`    Gateway token:   ${gw.token}   (recovery credential)`);
  out(`    Gateway login:   auth method ${gw.login.authMethodId}, login name "${gw.login.loginName}", password "${gw.login.password}"`);
  out(`                     cairn gateway authenticate password -addr=${gw.apiUrl} -auth-method-id=${gw.login.authMethodId} -login-name=${gw.login.loginName}`);
  out(`    Gateway target:  ${gw.targetId}   (the secrets service on 127.0.0.1, through the worker)`);
  out(`                     cairn gateway connect -addr=${gw.apiUrl} -target-id=${gw.targetId}   (with GATEWAY_TOKEN from the login)`);
  out(`    Gateway proxy:   ${gw.proxyAddress}`);
  out(`    Gateway health:  ${gw.opsUrl}/health   (worker: ${gw.opsUrl}/health?worker_info=1)`);
  out('');
  out(`The dev server keeps its data in ${opts.dataDir}.`);
  out('');
  out('WARNING! Dev mode is enabled. The secrets service was initialised with ONE unseal key,');
  out(`kept in clear in ${opts.dataDir}/dev-unseal-key so that restarts need no steps: anyone`);
  out('who can read that directory can read every secret. Never put real secrets in dev mode.');
  out('');
  out('You may need to set the following environment variables:');
  out('');
  out(`    $ export SECRETS_ADDR='${url}'`);
  out(`    $ export SECRETS_TOKEN='${rootToken}'`);
  out(`    $ export MESH_HTTP_ADDR='${handle.mesh.url}' MESH_HTTP_TOKEN='${rootToken}'`);
  out(`    $ export SCHED_ADDR='${handle.sched.url}' SCHED_TOKEN='${rootToken}'`);
  out(`    $ export GATEWAY_ADDR='${gw.apiUrl}' GATEWAY_TOKEN='${gw.token}'`);
  out('');
  out('Press Ctrl-C to stop.');

  await waitForShutdown(app);
  app.io.stderr('==> Stopping the dev server…\n');
  await handle.close();
  return 0;
}
