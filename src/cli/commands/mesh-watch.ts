/**
 * `cairn mesh watch -type=TYPE [options] [CHILD…]`: watches a view of the discovery
 * service with blocking queries (reference: the `consul watch` command and its `api/watch`
 * plans, with their texts; the SDK's `runMeshWatch`):
 *
 * - `-type=key -key=K` (the entry, `null` while missing), `keyprefix -prefix=P` (the
 *   entries, `null` when none), `services` (catalog services), `nodes` (catalog nodes),
 *   `service -service=S [-tag=T…] [-passingonly=true]` (health service entries), `checks
 *   [-service=S | -state=STATE]` (the checks of a service, or those in a state, default `any`);
 * - without CHILD the current result is printed as JSON and the command ends;
 * - with CHILD, it runs (through `$SHELL -c` unless `-shell=false`) with each new result as
 *   JSON on its standard input and `MESH_INDEX` set, until SIGINT/SIGTERM (exit 0); a child
 *   that fails ends the watch (`Error executing handler: exit status N`, exit 1);
 * - a failed read is retried with back-off (5 s × failures², at most 3 min).
 *
 * The reference's `event` type is not offered (Cairn has no user events).
 *
 * @module
 */
import { type Command, Option } from 'commander';
import { type MeshClient, runMeshWatch, type MeshWatchRead } from '../../sdk/index.js';
import { collect } from '../client-command.js';
import { endText, killChild, type RunningChild, startChild, succeeded } from '../child-command.js';
import { commandGroup, type App } from '../context.js';
import { flagBool, parseBool, UsageError } from '../args.js';
import { interruption } from '../shutdown.js';
import { meshLeaf, type MeshCtx, optList, optString } from './acl-common.js';

/** The watch parameters given, by the reference's names. */
interface WatchParams {
  key?: string;
  prefix?: string;
  service?: string;
  tag?: string[];
  passingonly?: boolean;
  state?: string;
}

/** What a type reads, from the parameters it takes (each one it uses is deleted from `p`). @throws Error with the reference's text. */
type WatchFactory = (client: MeshClient, p: WatchParams) => MeshWatchRead<unknown>;

/** Takes `name` out of `p` (the reference's `assignValue`, which consumes each parameter it reads). */
function take<K extends keyof WatchParams>(p: WatchParams, name: K): WatchParams[K] {
  const v = p[name];
  delete p[name];
  return v;
}

const WATCH_TYPES: Readonly<Record<string, WatchFactory>> = {
  key: (client, p) => {
    const key = take(p, 'key');
    if (!key) throw new Error('Must specify a single key to watch');
    return async (o) => {
      const r = await client.kv.get(key, o);
      return { value: r.entry ?? null, index: r.index };
    };
  },
  keyprefix: (client, p) => {
    const prefix = take(p, 'prefix');
    if (!prefix) throw new Error('Must specify a single prefix to watch');
    return async (o) => {
      const r = await client.kv.list(prefix, o);
      return { value: r.items.length > 0 ? r.items : null, index: r.index };
    };
  },
  services: (client) => async (o) => {
    const r = await client.catalog.services(o);
    return { value: r.value, index: r.index };
  },
  nodes: (client) => async (o) => {
    const r = await client.catalog.nodes(o);
    return { value: r.items, index: r.index };
  },
  service: (client, p) => {
    const service = take(p, 'service');
    if (!service) throw new Error('Must specify a single service to watch');
    const tag = take(p, 'tag');
    const passing = take(p, 'passingonly') ?? false;
    return async (o) => {
      const r = await client.health.service(service, { ...o, tag, passing });
      return { value: r.items, index: r.index };
    };
  },
  checks: (client, p) => {
    const service = take(p, 'service');
    let state = take(p, 'state');
    if (service && state) throw new Error('Cannot specify service and state');
    if (!service && !state) state = 'any';
    return async (o) => {
      const r = state ? await client.health.state(state as 'any', o) : await client.health.checks(service!, o);
      return { value: r.items, index: r.index };
    };
  },
};

/** The parameters the flags give. @throws UsageError for a `-passingonly` that is not a boolean. */
function paramsOf(ctx: MeshCtx): WatchParams {
  const p: WatchParams = {};
  const set = (name: 'key' | 'prefix' | 'service' | 'state', flag: string) => {
    const v = optString(ctx.opts, flag);
    if (v) p[name] = v;
  };
  set('key', 'key');
  set('prefix', 'prefix');
  set('service', 'service');
  set('state', 'state');
  const tags = optList(ctx.opts, 'tag');
  if (tags && tags.length > 0) p.tag = tags;
  const passing = optString(ctx.opts, 'passingonly');
  if (passing) {
    try {
      p.passingonly = parseBool(passing, 'passingonly');
    } catch {
      throw new UsageError(`Failed to parse passingonly flag: strconv.ParseBool: parsing "${passing}": invalid syntax`);
    }
  }
  return p;
}

async function watch(ctx: MeshCtx): Promise<number> {
  const fail = (text: string) => {
    ctx.io.stderr(`${text}\n`);
    return 1;
  };
  const type = optString(ctx.opts, 'type');
  if (!type) return fail('Watch type must be specified');
  const factory = Object.hasOwn(WATCH_TYPES, type) ? WATCH_TYPES[type] : undefined;
  if (!factory) return fail(type === 'event' ? 'Unsupported watch type: event (Cairn has no user events)' : `Unsupported watch type: ${type}`);
  const params = paramsOf(ctx);
  let read: MeshWatchRead<unknown>;
  try {
    read = factory(ctx.client, params);
  } catch (err) {
    return fail((err as Error).message);
  }
  const unused = Object.keys(params).sort();
  if (unused.length > 0) return fail(`Invalid parameters: [${unused.join(' ')}]`);
  try {
    await ctx.client.agent.self();
  } catch (err) {
    return fail(`Error querying Mesh agent: ${(err as Error).message}`);
  }

  const stop = interruption(ctx.io);
  const done = new AbortController();
  const signal = AbortSignal.any([stop.signal, done.signal]);
  let exit = 0;
  let running: RunningChild | undefined;
  const kill = () => running && void killChild(running);
  stop.signal.addEventListener('abort', kill, { once: true });
  const shell = ctx.opts.shell === undefined ? true : flagBool(ctx.opts.shell, 'shell');
  const onChange =
    ctx.args.length === 0
      ? (value: unknown) => {
          // The reference prints with four-space indents.
          ctx.io.stdout(`${JSON.stringify(value, null, 4)}\n`);
          done.abort();
        }
      : async (value: unknown, index: number) => {
          running = startChild(ctx.args, {
            shell,
            env: { ...process.env, ...ctx.env, MESH_INDEX: String(index) },
            stdin: Buffer.from(`${JSON.stringify(value)}\n`),
            io: ctx.io,
          });
          const ended = await running.ended;
          running = undefined;
          if (!succeeded(ended) && !stop.signal.aborted) {
            ctx.io.stderr(`Error executing handler: ${endText(ended)}\n`);
            exit = 1;
            done.abort();
          }
        };
  try {
    await runMeshWatch({
      read,
      onChange,
      signal,
      onError: (err, retryMs) => ctx.io.stderr(`Watch errored: type=${type}: ${(err as Error).message} (retry in ${retryMs / 1000}s)\n`),
    });
    return exit;
  } finally {
    stop.signal.removeEventListener('abort', kill);
    stop.dispose();
  }
}

/** Adds `mesh watch` to `program` (in the `mesh` group). */
export function addMeshWatchCommand(app: App, program: Command): void {
  const mesh = commandGroup(program, 'mesh', 'discovery service commands');
  meshLeaf(
    app,
    mesh
      .command('watch')
      .argument('[child...]', 'the command to run with each new result as JSON on its standard input (none: print the result once)')
      .description('watch a key, a prefix, the services, the nodes, a service or checks for changes')
      .option('--type <type>', 'what to watch: key, keyprefix, services, nodes, service or checks')
      .option('--key <key>', "the key ('key' type)")
      .option('--prefix <prefix>', "the key prefix ('keyprefix' type)")
      .option('--service <name>', "the service ('service' type; optional for 'checks')")
      .option('--tag <tag>', "a tag the instances must carry ('service' type; repeatable)", collect)
      .option('--passingonly <bool>', "only instances whose every check passes ('service' type; true or false)")
      .option('--state <state>', "the check state: any, passing, warning or critical ('checks' type)")
      .addOption(new Option('--shell [bool]', 'run the child through $SHELL -c (default true)')),
    watch,
  );
}
