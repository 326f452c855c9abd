/**
 * `cairn mesh lock [options] PREFIX CHILD…`: runs CHILD while holding a lock in the
 * discovery service's key/value store (reference: the `consul lock` command and `api.Lock`,
 * with their texts; the SDK's `MeshLock`):
 *
 * - the lock is the key `PREFIX/.lock` (leading `/` dropped), held by a new session (TTL
 *   15 s, renewed every 7.5 s, the service's lock delay) named `-name` (default
 *   `Mesh lock for 'CHILD' at 'PREFIX'`); the command waits for it (`-timeout`: at most
 *   that long, then `Shutdown triggered or timeout during lock acquisition`, exit 1);
 * - CHILD runs through `$SHELL -c` (`-shell=false`: as it is) with `MESH_LOCK_HELD=true`,
 *   standard input only with `-pass-stdin`;
 * - when the lock is lost (the session invalidated or destroyed, the key taken; reads
 *   failing more than `-monitor-retry` times in a row, 1 s apart) or on SIGINT/SIGTERM, the
 *   child gets SIGTERM, then SIGKILL after 5 s; when the child ends, the lock is released,
 *   the session destroyed and the key deleted unless another session holds it;
 * - exit 0, or with `-child-exit-code` 2 when the child failed; 1 when the lock could not
 *   be taken or released.
 *
 * With `-n` above 1 a semaphore (the SDK's `MeshSemaphore`) lets that many run at once: the
 * contenders hold `PREFIX/<session>` and `PREFIX/.lock` lists the holders; every
 * contender on a prefix must use the same `-n`.
 *
 * @module
 */
import { posix } from 'node:path';
import { type Command, Option } from 'commander';
import { goDurationMs } from '../../kernel/util/go-duration.js';
import { MeshLock, MeshLockInUseError, MeshSemaphore, MeshSemaphoreInUseError } from '../../sdk/index.js';
import { flagBool, UsageError } from '../args.js';
import { endText, killChild, type RunningChild, startChild, succeeded } from '../child-command.js';
import { commandGroup, type App } from '../context.js';
import { interruption } from '../shutdown.js';
import { meshLeaf, type MeshCtx, optString } from './acl-common.js';

/** Pause between the reads of a held key that failed (the reference CLI's `defaultMonitorRetryTime`), ms. */
const MONITOR_RETRY_MS = 1000;

/** `-timeout` (or its old name `-try`) in ms; 0 when absent. @throws UsageError for a value that is not a duration. */
function timeoutOf(ctx: MeshCtx): number {
  const text = optString(ctx.opts, 'timeout') ?? optString(ctx.opts, 'try');
  if (text === undefined) return 0;
  const ms = goDurationMs(text);
  if (ms === undefined) throw new UsageError(`invalid value "${text}" for flag -timeout: parse error`);
  return ms;
}

/** An integer flag that may be negative (the reference reports those itself). @throws UsageError otherwise. */
function intFlag(ctx: MeshCtx, name: string, flag: string, fallback: number): number {
  const text = optString(ctx.opts, name);
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text)) throw new UsageError(`invalid value "${text}" for flag -${flag}: parse error`);
  return Number(text);
}

async function lock(ctx: MeshCtx): Promise<number> {
  const fail = (text: string) => {
    ctx.io.stderr(`${text}\n`);
    return 1;
  };
  const info = (text: string) => verbose && ctx.io.stdout(`${text}\n`);
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  const limit = intFlag(ctx, 'n', 'n', 1);
  if (limit <= 0) return fail('Lock holder limit must be positive');
  if (ctx.args.length < 2) return fail('Key prefix and child command must be specified');
  const prefix = ctx.args[0]!.replace(/^\//, '');
  const childArgs = ctx.args.slice(1);
  const timeoutMs = timeoutOf(ctx);
  if (timeoutMs < 0) return fail('Timeout must be positive');
  const name = optString(ctx.opts, 'name') || `Mesh lock for '${childArgs.join(' ')}' at '${prefix}'`;
  const monitorRetry = intFlag(ctx, 'monitorRetry', 'monitor-retry', 3);
  if (monitorRetry < 0) return fail("Number for 'monitor-retry' must be >= 0");
  try {
    await ctx.client.agent.self();
  } catch (err) {
    return fail(`Error querying Mesh agent: ${(err as Error).message}`);
  }

  const common = { sessionName: name, monitorRetries: monitorRetry, monitorRetryMs: MONITOR_RETRY_MS, tryOnce: timeoutMs > 0, waitMs: timeoutMs };
  let held: MeshLock | MeshSemaphore;
  if (limit === 1) {
    const key = posix.join(prefix, '.lock');
    info(`Setting up lock at path: ${key}`);
    held = new MeshLock(ctx.client, { key, ...common });
  } else {
    info(`Setting up semaphore (limit ${limit}) at prefix: ${prefix}`);
    held = new MeshSemaphore(ctx.client, { prefix, limit, ...common });
  }
  const stop = interruption(ctx.io);
  try {
    info('Attempting lock acquisition');
    let lost: AbortSignal | undefined;
    try {
      lost = await held.acquire(stop.signal);
    } catch (err) {
      return fail(`Lock acquisition failed: ${(err as Error).message}`);
    }
    if (!lost) return fail('Shutdown triggered or timeout during lock acquisition');

    let childCode = 0;
    if (stop.signal.aborted) {
      ctx.io.stderr('Shutdown triggered during lock acquisition\n');
    } else {
      childCode = await runWhileHeld(ctx, childArgs, { lost, shutdown: stop.signal, info });
    }
    try {
      await held.release();
    } catch (err) {
      return fail(`Lock release failed: ${(err as Error).message}`);
    }
    try {
      await held.destroy();
      info('Cleanup succeeded');
    } catch (err) {
      if (!(err instanceof MeshLockInUseError || err instanceof MeshSemaphoreInUseError)) return fail(`Lock cleanup failed: ${(err as Error).message}`);
      info('Cleanup aborted, lock in use');
    }
    return flagBool(ctx.opts.childExitCode, 'child-exit-code') ? childCode : 0;
  } finally {
    stop.dispose();
  }
}

/** Runs the child until it ends (2 when it failed, else 0), or kills it when the lock is lost or `shutdown` aborts (0). */
async function runWhileHeld(
  ctx: MeshCtx,
  args: readonly string[],
  { lost, shutdown, info }: { lost: AbortSignal; shutdown: AbortSignal; info: (text: string) => void },
): Promise<number> {
  info('Starting handler');
  const shell = ctx.opts.shell === undefined ? true : flagBool(ctx.opts.shell, 'shell');
  const child: RunningChild = startChild(args, {
    shell,
    env: { ...process.env, ...ctx.env, MESH_LOCK_HELD: 'true' },
    stdin: flagBool(ctx.opts.passStdin, 'pass-stdin') ? 'inherit' : 'ignore',
    io: ctx.io,
  });
  const why = await Promise.race([
    child.ended.then((r) => ({ ended: r })),
    new Promise<{ ended?: undefined; text: string }>((resolve) => {
      const on = (signal: AbortSignal, text: string) =>
        signal.aborted ? resolve({ text }) : signal.addEventListener('abort', () => resolve({ text }), { once: true });
      on(lost, 'Lock lost, killing child');
      on(shutdown, 'Shutdown triggered, killing child');
    }),
  ]);
  if (why.ended) {
    if (!succeeded(why.ended)) ctx.io.stderr(`Error running handler: ${endText(why.ended)}\n`);
    info('Child terminated, releasing lock');
    return succeeded(why.ended) ? 0 : 2;
  }
  info(why.text);
  await killChild(child);
  return 0;
}

/** Adds `mesh lock` to `program` (in the `mesh` group). */
export function addMeshLockCommand(app: App, program: Command): void {
  const mesh = commandGroup(program, 'mesh', 'discovery service commands');
  const bool = (flag: string, help: string) => new Option(`--${flag} [bool]`, help);
  meshLeaf(
    app,
    mesh
      .command('lock')
      .argument('[prefix]', 'the key prefix of the lock (the lock is the key PREFIX/.lock)')
      .argument('[child...]', 'the command to run while the lock is held (both are required)')
      .description('run a command while holding a lock in the key/value store')
      .option('--n <count>', 'holders at once (default 1: a lock; above 1: a semaphore, the same on every contender)')
      .option('--name <name>', "the lock session's name (default: Mesh lock for 'CHILD' at 'PREFIX')")
      .option('--timeout <duration>', 'longest wait for the lock, a duration like 1s or 3h (default 0: no limit)')
      .addOption(new Option('--try <duration>', 'deprecated: use -timeout').hideHelp())
      .option('--monitor-retry <n>', 'failed reads of the lock tolerated (1 s apart) before it counts as lost (default 3)')
      .addOption(bool('pass-stdin', "pass this command's standard input to the child"))
      .addOption(bool('shell', 'run the child through $SHELL -c (default true)'))
      .addOption(bool('child-exit-code', 'exit 2 when the child failed (default: exit 0 whatever the child did)'))
      .addOption(bool('verbose', 'say what the command does')),
    lock,
  );
}
