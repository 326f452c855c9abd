/**
 * `cairn csi hostpath -socket=PATH -root=DIR [-node-id=ID] [-capabilities=LIST]
 * [-max-volumes-per-node=N] [-log-level=LEVEL]`: runs Cairn's reference CSI plugin
 * (kernel/csi hostpath: volumes are directories under DIR) on the unix socket PATH, prints
 * where it serves, and runs until SIGINT/SIGTERM (or `io.shutdown` aborts). It starts a
 * server in-process, like `mesh agent` and `sched agent`.
 *
 * `-capabilities` is a comma-separated list of CSI controller capability names
 * (`CREATE_DELETE_VOLUME,LIST_VOLUMES,…`); default: the plugin's default set. `-node-id`
 * defaults to the host name.
 *
 * Exit codes: 2 for a usage error (missing flag, unknown capability, bad number); 1 when
 * the socket or root cannot be used; 0 after a clean stop.
 *
 * @module
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { UsageError, parseNonNegativeInt } from '../args.js';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';

interface HostpathFlags {
  socket: string;
  root: string;
  nodeId?: string;
  capabilities?: string;
  maxVolumesPerNode?: string;
  logLevel: string;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'];

/** Adds `csi hostpath` to `program` (reusing a `csi` group another file may have made). */
export function addCsiHostpathCommand(app: App, program: Command): void {
  const group = program.commands.find((c) => c.name() === 'csi') ?? program.command('csi').description('CSI plugin commands');
  group
    .command('hostpath')
    .description('run the reference hostpath CSI plugin on a unix socket')
    .requiredOption('--socket <path>', 'unix socket to serve the CSI gRPC services on')
    .requiredOption('--root <dir>', 'directory holding the volumes and snapshots')
    .option('--node-id <id>', 'node ID reported by NodeGetInfo (default: host name)')
    .option('--capabilities <list>', 'comma-separated controller capabilities (default: all but VOLUME_CONDITION and SINGLE_NODE_MULTI_WRITER)')
    .option('--max-volumes-per-node <n>', 'volumes that may be published to this node; 0 = no limit')
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent', 'info')
    .action(async (opts: HostpathFlags) => {
      app.exitCode = await runHostpath(app, opts);
    });
}

async function runHostpath(app: App, flags: HostpathFlags): Promise<number> {
  // Loaded on demand so other commands never load the plugin.
  const { startHostpathPlugin, HOSTPATH_SUPPORTED_CAPABILITIES } = await import('../../kernel/csi/index.js');
  const { createLogger } = await import('../../kernel/log/logger.js');
  if (!LOG_LEVELS.includes(flags.logLevel)) throw new UsageError(`invalid value "${flags.logLevel}" for -log-level: expected one of ${LOG_LEVELS.join(', ')}`);
  let capabilities: (typeof HOSTPATH_SUPPORTED_CAPABILITIES)[number][] | undefined;
  if (flags.capabilities !== undefined) {
    const names = flags.capabilities
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const unknown = names.filter((n) => !(HOSTPATH_SUPPORTED_CAPABILITIES as readonly string[]).includes(n));
    if (unknown.length > 0)
      throw new UsageError(`unknown capability ${unknown.join(', ')} for -capabilities (supported: ${HOSTPATH_SUPPORTED_CAPABILITIES.join(', ')})`);
    capabilities = names as typeof capabilities;
  }
  const maxVolumesPerNode = flags.maxVolumesPerNode === undefined ? 0 : parseNonNegativeInt(flags.maxVolumesPerNode, 'max-volumes-per-node');
  const nodeId = flags.nodeId || hostname();
  const log = createLogger(flags.logLevel as 'info');
  const plugin = await startHostpathPlugin({ socket: flags.socket, root: flags.root, nodeId, capabilities, maxVolumesPerNode, log });
  app.io.stdout(`==> Cairn CSI hostpath plugin started (node ${nodeId}, root ${flags.root}).\n`);
  app.io.stdout(`    Socket: ${plugin.socket}\n`);
  await waitForShutdown(app);
  await plugin.close();
  app.io.stdout('==> Cairn CSI hostpath plugin stopped.\n');
  return 0;
}
