/**
 * `cairn mesh services register|deregister`: services of the local discovery agent through
 * the SDK's `MeshClient.agent` (reference: `consul services register|deregister`, with its
 * texts):
 *
 * - `register -name=web [-id] [-address] [-port] [-tag=…]… [-meta=k=v]…` or `register
 *   FILE…` (HCL or JSON service definitions, mesh-service-file.ts; the flags fill in what a
 *   file leaves out, `-meta` pairs are added, `-tag`s appended) prints `Registered service:
 *   NAME` per service;
 * - `deregister -id=ID` or `deregister FILE…` (each service's ID, else its name) prints
 *   `Deregistered service: ID`.
 *
 * Refusals print the reference's `Error registering service "NAME": …` and exit 1.
 *
 * @module
 */
import type { Command } from 'commander';
import { MeshApiError, type MeshServiceRegistration } from '../../sdk/index.js';
import { collectPair, parseNonNegativeInt } from '../args.js';
import { commandGroup, type App } from '../context.js';
import { collect, meshLeaf, type MeshCtx, optList, optString } from './acl-common.js';
import { servicesFromFile } from './mesh-service-file.js';

/** Prints `text` on standard error and returns exit code 1 (the reference's refusals). */
function refuse(ctx: MeshCtx, text: string): number {
  ctx.io.stderr(`${text}\n`);
  return 1;
}

/** The services of every file in `files`; undefined after printing `Error: …` for a bad file. */
function fromFiles(ctx: MeshCtx, files: readonly string[]): MeshServiceRegistration[] | undefined {
  try {
    return files.flatMap(servicesFromFile);
  } catch (err) {
    refuse(ctx, `Error: ${(err as Error).message}`);
    return undefined;
  }
}

/** The service the flags describe (the reference's `svcFromFlags`). */
function fromFlags(ctx: MeshCtx): MeshServiceRegistration {
  const port = optString(ctx.opts, 'port');
  return {
    Name: optString(ctx.opts, 'name') ?? '',
    ID: optString(ctx.opts, 'id'),
    Address: optString(ctx.opts, 'address'),
    Port: port === undefined ? undefined : parseNonNegativeInt(port, 'port'),
    Tags: optList(ctx.opts, 'tag'),
    Meta: ctx.opts.meta as Record<string, string> | undefined,
  };
}

/** A file's service with the flags filling in what it leaves out (the reference's `CombineArgs`). */
function combine(file: MeshServiceRegistration, flags: MeshServiceRegistration): MeshServiceRegistration {
  return {
    ...file,
    ID: file.ID || flags.ID,
    Name: file.Name || flags.Name,
    Address: file.Address || flags.Address,
    Port: file.Port || flags.Port,
    Meta: { ...file.Meta, ...flags.Meta },
    Tags: [...(file.Tags ?? []), ...(flags.Tags ?? [])],
  };
}

async function register(ctx: MeshCtx): Promise<number> {
  const flags = fromFlags(ctx);
  if (ctx.args.length === 0 && flags.Name === '') return refuse(ctx, 'Service registration requires at least one argument or flags.');
  if (ctx.args.length > 0 && flags.Name !== '') return refuse(ctx, 'Service registration requires arguments or -id, not both.');
  const files = ctx.args.length > 0 ? fromFiles(ctx, ctx.args) : [flags];
  if (!files) return 1;
  const services = ctx.args.length > 0 ? files.map((s) => combine(s, flags)) : files;
  for (const svc of services) {
    try {
      await ctx.client.agent.registerService(svc);
    } catch (err) {
      if (err instanceof MeshApiError) return refuse(ctx, `Error registering service ${JSON.stringify(svc.Name)}: ${err.message}`);
      throw err;
    }
    ctx.io.stdout(`Registered service: ${svc.Name}\n`);
  }
  return 0;
}

async function deregister(ctx: MeshCtx): Promise<number> {
  const id = optString(ctx.opts, 'id') ?? '';
  if (ctx.args.length === 0 && id === '') return refuse(ctx, 'Service deregistration requires at least one argument or -id.');
  if (ctx.args.length > 0 && id !== '') return refuse(ctx, 'Service deregistration requires arguments or -id, not both.');
  const services = ctx.args.length > 0 ? fromFiles(ctx, ctx.args) : [{ Name: '', ID: id }];
  if (!services) return 1;
  for (const svc of services) {
    const target = svc.ID || svc.Name;
    if (!target) continue;
    try {
      await ctx.client.agent.deregisterService(target);
    } catch (err) {
      if (err instanceof MeshApiError) return refuse(ctx, `Error deregistering service ${JSON.stringify(target)}: ${err.message}`);
      throw err;
    }
    ctx.io.stdout(`Deregistered service: ${target}\n`);
  }
  return 0;
}

/** Adds `mesh services register|deregister` to `program` (reusing the `mesh` group). */
export function addMeshServicesCommands(app: App, program: Command): void {
  const services = commandGroup(program, 'mesh', 'discovery service commands').command('services').description('services of the local agent');
  meshLeaf(
    app,
    services
      .command('register')
      .argument('[files...]', 'HCL or JSON files with service definitions (instead of -name)')
      .description('register services with the local agent, from flags or files')
      .option('--name <name>', 'the service name (flag-based registration)')
      .option('--id <id>', 'the service ID (default: the name)')
      .option('--address <address>', "the service address (default: the node's)")
      .option('--port <port>', 'the service port')
      .option('--tag <tag>', 'a tag; repeat for more', collect)
      .option('--meta <key=value>', 'a metadata pair; repeat for more', collectPair),
    register,
  );
  meshLeaf(
    app,
    services
      .command('deregister')
      .argument('[files...]', 'the files the services were registered from (instead of -id)')
      .description('deregister services of the local agent')
      .option('--id <id>', 'the ID of the service to deregister'),
    deregister,
  );
}
