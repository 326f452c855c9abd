/**
 * Entry of the `cairn` command line. Testable in-process: arguments, environment and
 * output streams are parameters, and the exit code is returned rather than set.
 *
 * Exit codes: 0 success; 1 server or connection error; 2 usage error or nothing found
 * at the path (as the reference CLI).
 *
 * @module
 */
import { Command, CommanderError } from 'commander';
import { SecretsApiError, SecretsConnectionError } from '../sdk/index.js';
import { UsageError, endFlagsAtFirstArg, normalizeArgs } from './args.js';
import { addAclCommands } from './commands/acl.js';
import { addAdminCommands } from './commands/admin.js';
import { addCsiHostpathCommand } from './commands/csi-hostpath.js';
import { addDevCommand } from './commands/dev.js';
import { addSecretsServerCommand } from './commands/secrets-server.js';
import { addGatewayClientCommands } from './commands/gateway.js';
import { addGatewayDomainCommands } from './commands/gateway-domain.js';
import { addGatewayTargetCommands } from './commands/gateway-targets.js';
import { addGatewayCredentialCommands } from './commands/gateway-credentials.js';
import { addGatewayServerCommand } from './commands/gateway-server.js';
import { addKvCommands } from './commands/kv.js';
import { addMeshAgentCommand } from './commands/mesh-agent.js';
import { addMeshCatalogCommands } from './commands/mesh-catalog.js';
import { addMeshKvCommands } from './commands/mesh-kv.js';
import { addMeshLockCommand } from './commands/mesh-lock.js';
import { addMeshWatchCommand } from './commands/mesh-watch.js';
import { addMeshServicesCommands } from './commands/mesh-services.js';
import { addReadWriteCommands } from './commands/read-write.js';
import { addUnwrapCommand } from './commands/wrap.js';
import { addSchedCommands } from './commands/sched.js';
import { addSchedAgentCommand } from './commands/sched-agent.js';
import { addTokenCommands } from './commands/token.js';
import { addLeaseCommands } from './commands/lease.js';
import { addVersionCommand, VERSION_FLAGS } from './commands/version.js';
import { type App, type CliIo, addGlobalOptions } from './context.js';

export type { CliIo } from './context.js';

/** The full command tree, with output and exits routed through `app`. */
function buildProgram(app: App): Command {
  const program = new Command('cairn')
    .description('Cairn: secrets service, access gateway, discovery and scheduler services')
    .configureOutput({ writeOut: app.io.stdout, writeErr: app.io.stderr })
    .exitOverride()
    .showSuggestionAfterError(true);
  addReadWriteCommands(app, program);
  addUnwrapCommand(app, program);
  addKvCommands(app, program);
  addTokenCommands(app, program);
  addLeaseCommands(app, program);
  addAdminCommands(app, program);
  addDevCommand(app, program);
  addSecretsServerCommand(app, program);
  addGatewayServerCommand(app, program);
  addGatewayClientCommands(app, program);
  addGatewayDomainCommands(app, program);
  addGatewayTargetCommands(app, program);
  addGatewayCredentialCommands(app, program);
  addMeshAgentCommand(app, program);
  addMeshKvCommands(app, program);
  addMeshServicesCommands(app, program);
  addMeshCatalogCommands(app, program);
  addMeshLockCommand(app, program);
  addMeshWatchCommand(app, program);
  addAclCommands(app, program);
  addSchedAgentCommand(app, program);
  addSchedCommands(app, program);
  addCsiHostpathCommand(app, program);
  addVersionCommand(app, program);
  app.leaves.forEach(addGlobalOptions);
  return program;
}

/** The commands whose arguments after the first non-flag one are another command's (see {@link endFlagsAtFirstArg}). */
const COMMAND_RUNNERS = [
  ['mesh', 'lock'],
  ['mesh', 'watch'],
] as const;

/** Long option names by kind, over the whole tree, for {@link normalizeArgs}. */
function flagKinds(program: Command): { booleanFlags: Set<string>; valueFlags: Set<string> } {
  const booleanFlags = new Set<string>();
  const valueFlags = new Set<string>();
  const visit = (cmd: Command) => {
    for (const opt of cmd.options) {
      const name = opt.long?.replace(/^--/, '');
      if (!name) continue;
      if (opt.optional) booleanFlags.add(name);
      else if (opt.required) valueFlags.add(name);
    }
    cmd.commands.forEach(visit);
  };
  visit(program);
  return { booleanFlags, valueFlags };
}

/** `1 error occurred:\n\t* permission denied\n\n` (Go multierror) → `permission denied`; newlines folded. */
export function oneLine(message: string): string {
  const bullets = [...message.matchAll(/^\s*\* (.+)$/gm)].map((m) => m[1].trim());
  const text = /^\d+ errors? occurred:/.test(message.trim()) && bullets.length > 0 ? bullets.join('; ') : message;
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function report(err: unknown, io: CliIo): number {
  const line = (text: string) => io.stderr(`Error: ${text}\n`);
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    // Commander has already printed its one-line message (or the help).
    return 2;
  }
  if (err instanceof UsageError) {
    line(err.message);
    return 2;
  }
  if (err instanceof SecretsApiError) {
    const text = err.errors.length > 0 ? oneLine(err.errors.join('; ')) : (err.warnings[0] ?? `${err.request.method} ${err.request.path} failed`);
    line(`${oneLine(text)} (HTTP ${err.status})`);
    return 1;
  }
  if (err instanceof SecretsConnectionError) {
    line(oneLine(err.message));
    return 1;
  }
  line(oneLine(err instanceof Error ? err.message : String(err)));
  return 1;
}

/**
 * Runs one `cairn` invocation.
 *
 * @param argv Arguments after the program name; Go-style `-flag=value` is accepted.
 * @param env Environment (`SECRETS_ADDR`, `SECRETS_TOKEN`, `GATEWAY_ADDR`, `GATEWAY_TOKEN`, …).
 * @param io Output writers (whole chunks, newlines included) and optional stdin/TTY/shutdown hooks.
 * @returns The exit code: 0 ok, 1 server or connection error, 2 usage error or not found.
 */
export async function main(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const app: App = { io, env, exitCode: 0, clients: [], leaves: [] };
  const program = buildProgram(app);
  try {
    if (argv.length === 0) {
      io.stderr(program.helpInformation());
      return 2;
    }
    // `cairn -version` is `cairn version` (only as the sole argument: `-version` is also a
    // flag of the kv commands).
    if (argv.length === 1 && VERSION_FLAGS.has(argv[0])) argv = ['version'];
    const kinds = flagKinds(program);
    await program.parseAsync(normalizeArgs(endFlagsAtFirstArg(argv, COMMAND_RUNNERS, kinds), kinds), { from: 'user' });
    return app.exitCode;
  } catch (err) {
    return report(err, io);
  } finally {
    await Promise.allSettled(app.clients.map((c) => c.close()));
  }
}
