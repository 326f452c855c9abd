/**
 * The client's file-system endpoints (reference/sched-workloads.md "Allocations"; the
 * reference's `/v1/client/fs/*`), answered by the agent whose client runs the allocation
 * (others forward them there, client-locate.ts):
 *
 * ```text
 * GET /v1/client/fs/logs/:alloc?task=&type=stdout|stderr&follow=&offset=&origin=start|end&plain=   namespace:read-logs
 * GET /v1/client/fs/ls/:alloc?path=                                                                namespace:read-fs
 * GET /v1/client/fs/cat/:alloc?path=                                                               namespace:read-fs
 * ```
 *
 * Logs: `plain=true` sends the bytes as they are (`text/plain`); otherwise a stream of JSON
 * frames, one per line, `{"Data": <base64>, "File": "<task>.<type>.<N>", "Offset": <end of
 * Data in File>, "FileEvent": ""}`. `follow=true` keeps the reply open and sends what the task
 * writes later, until the task is dead and everything was sent (or the caller leaves). Paths
 * of `ls` and `cat` are relative to the allocation directory and may not leave it (`..` or a
 * symbolic link: 400); `cat` never reads a task's `secrets/` or `private/` files (403).
 *
 * @module
 */
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { ApiQuery } from '../../../kernel/http/index.js';
import { confinedPath, privateArea } from '../client/alloc-dir.js';
import { LogCursor } from '../client/log-stream.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { CairnError } from '../../../kernel/http/index.js';
import { queryBool } from '../request.js';
import { allocAccess, locateAlloc, type LocalAlloc } from './client-locate.js';

/** Poll period of a followed log, in ms. */
const FOLLOW_POLL_MS = 200;

/** The query of a log read. */
interface LogsQuery {
  readonly task: string;
  readonly type: 'stdout' | 'stderr';
  readonly origin: 'start' | 'end';
  /** Bytes from `origin`. */
  readonly offset: number;
  readonly follow: boolean;
  readonly plain: boolean;
}

/**
 * The query of a log read. @throws 400 `must include task name`, `invalid log type "<t>": must
 * be stdout or stderr`, `invalid origin "<o>": must be start or end`, `invalid offset "<o>"`,
 * a bad `follow` / `plain`.
 */
function logsQuery(ctx: Ctx): LogsQuery {
  const task = ctx.query.get('task') ?? '';
  const type = ctx.query.get('type') ?? 'stdout';
  const origin = ctx.query.get('origin') ?? 'start';
  const offsetText = ctx.query.get('offset') ?? '0';
  if (task === '') throw schedBadRequest('must include task name');
  if (type !== 'stdout' && type !== 'stderr') throw schedBadRequest(`invalid log type "${type}": must be stdout or stderr`);
  if (origin !== 'start' && origin !== 'end') throw schedBadRequest(`invalid origin "${origin}": must be start or end`);
  if (!/^\d+$/.test(offsetText)) throw schedBadRequest(`invalid offset "${offsetText}"`);
  return { task, type, origin, offset: Number(offsetText), follow: queryBool(ctx, 'follow'), plain: queryBool(ctx, 'plain') };
}

/** `read-logs` on the allocation ({@link allocAccess}), after the query's 400s, which the reference answers first. */
function logsAccess(ctx: Ctx): SchedAccess {
  logsQuery(ctx);
  return allocAccess('read-logs')(ctx);
}

/**
 * `GET /v1/client/fs/logs/:alloc`. @throws 400 as {@link logsQuery}, `unknown task name
 * "<t>"`; the errors of {@link locateAlloc}.
 */
async function logs(ctx: Ctx): Promise<SchedReply> {
  const { task, type, origin, offset, follow, plain } = logsQuery(ctx);
  const where = await locateAlloc(ctx);
  if ('forwarded' in where) return where.forwarded;
  const { local } = where;
  const tasks = local.alloc.Job?.TaskGroups.find((g) => g.Name === local.alloc.TaskGroup)?.Tasks.map((t) => t.Name) ?? [];
  if (!tasks.includes(task)) throw schedBadRequest(`unknown task name "${task}"`);
  const cursor = new LogCursor(local.dir.logs, `${task}.${type}`, origin, offset);
  const shutdown = ctx.deps.shutdown;
  return {
    headers: { 'Content-Type': plain ? 'text/plain; charset=utf-8' : 'application/json' },
    stream: async (out, signal) => {
      const send = (chunks: ReturnType<LogCursor['read']>) => {
        for (const c of chunks) {
          out.write(plain ? c.data : `${JSON.stringify({ Data: c.data.toString('base64'), File: c.file, Offset: c.offset, FileEvent: '' })}\n`);
        }
      };
      send(cursor.read());
      if (!follow) return;
      while (!signal.aborted && !shutdown.aborted && !out.destroyed) {
        const taskDone = isTaskDone(local, task);
        await sleep(FOLLOW_POLL_MS, signal);
        send(cursor.read());
        if (taskDone) return;
        await drained(out);
      }
    },
  };
}

/** The task will write no more: dead, or no longer run by this client. */
function isTaskDone(local: LocalAlloc, task: string): boolean {
  const runner = local.client.runner(local.alloc.ID);
  return !runner || runner.tasks.get(task)?.dead !== false;
}

/** Waits until `out` can take more (a slow reader holds the follow loop, not the memory). */
function drained(out: Writable): Promise<void> {
  return out.writableNeedDrain ? new Promise((resolve) => out.once('drain', () => resolve())) : Promise.resolve();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** A directory entry as the reference's `AllocFileInfo`: `{Name, IsDir, Size, FileMode, ModTime, ContentType}`. */
function fileInfo(path: string, name: string): Record<string, unknown> {
  const st = lstatSync(path);
  const isDir = st.isDirectory();
  return {
    Name: name,
    IsDir: isDir,
    Size: isDir ? 4096 : st.size,
    FileMode: modeString(st.mode, isDir, st.isSymbolicLink()),
    ModTime: st.mtime.toISOString(),
    ContentType: isDir ? '' : 'application/octet-stream',
  };
}

/** Go's `os.FileMode.String()` of the permission bits: `drwxr-xr-x`, `-rw-r--r--`, `Lrwxrwxrwx`. */
function modeString(mode: number, dir: boolean, link: boolean): string {
  const bits = 'rwxrwxrwx'
    .split('')
    .map((c, i) => (mode & (1 << (8 - i)) ? c : '-'))
    .join('');
  return `${dir ? 'd' : link ? 'L' : '-'}${bits}`;
}

/**
 * Allocation `:alloc` resolved locally or forwarded, and `?path=` (default `/`) confined to its
 * directory; `root` is the allocation directory.
 */
async function fsTarget(ctx: Ctx): Promise<{ path: string; root: string } | { forwarded: SchedReply }> {
  const where = await locateAlloc(ctx);
  if ('forwarded' in where) return where;
  const root = where.local.dir.root;
  return { path: confinedPath(root, ctx.query.get('path') ?? '/'), root };
}

/**
 * A task's `secrets/` and `private/` files are never read through the API (they hold its
 * tokens and rendered secrets), whatever path or link leads there: 403 with the reference's
 * `ReadAt` texts (it answers 500). Listing their names stays allowed, as in the reference.
 */
function refusePrivate(root: string, path: string, given: string): void {
  const area = privateArea(root, path);
  if (area) throw new CairnError('forbidden', `Reading ${area} file prohibited: ${given}`);
}

/** The query parameters of the logs stream. */
const LOGS_QUERY: ApiQuery = {
  task: Type.String({ description: 'Required: the task whose log to read.' }),
  type: Type.String({ description: '`stdout` (default) or `stderr`.' }),
  follow: Type.Boolean({ description: 'Keep streaming what the task writes.' }),
  offset: Type.Integer({ description: 'Bytes from `origin`.' }),
  origin: Type.String({ description: '`start` (default) or `end`.' }),
  plain: Type.Boolean({ description: 'The bytes as they are instead of framed JSON.' }),
};

/** The query parameter of `ls` and `cat`. */
const PATH_QUERY: ApiQuery = { path: Type.String({ description: 'A path inside the allocation directory (`/` by default).' }) };

/** Routes of this file (see the module doc). */
export const clientFsRoutes: readonly SchedRoute[] = [
  {
    pattern: 'client/fs/logs/:alloc',
    synopsis: "Stream a task's stdout or stderr log (?task=&type=&follow=&offset=&origin=&plain=)",
    methods: { GET: { access: logsAccess, query: LOGS_QUERY, handle: logs } },
  },
  {
    pattern: 'client/fs/ls/:alloc',
    synopsis: 'List a directory of an allocation (?path=)',
    methods: {
      /** The entries of `?path=` (a directory), sorted by name. @throws 400 `path "<p>" escapes the allocation directory`, `path "<p>" is not a directory`; 404 for a missing path; as {@link locateAlloc} (`read-fs`). */
      GET: {
        access: allocAccess('read-fs'),
        query: PATH_QUERY,
        handle: async (ctx) => {
          const t = await fsTarget(ctx);
          if ('forwarded' in t) return t.forwarded;
          if (!statSync(t.path).isDirectory()) throw schedBadRequest(`path "${ctx.query.get('path') ?? '/'}" is not a directory`);
          return {
            body: readdirSync(t.path)
              .sort()
              .map((name) => fileInfo(join(t.path, name), name)),
          };
        },
      },
    },
  },
  {
    pattern: 'client/fs/cat/:alloc',
    synopsis: 'Read a file of an allocation (?path=)',
    methods: {
      /** The file's bytes (`text/plain`). @throws 400 `path "<p>" escapes the allocation directory`, `path "<p>" is a directory`; 403 `Reading secret file prohibited: <p>` (a task's `secrets/`, likewise `private/`); 404 for a missing file; as {@link locateAlloc} (`read-fs`). */
      GET: {
        access: allocAccess('read-fs'),
        query: PATH_QUERY,
        handle: async (ctx) => {
          const t = await fsTarget(ctx);
          if ('forwarded' in t) return t.forwarded;
          if (statSync(t.path).isDirectory()) throw schedBadRequest(`path "${ctx.query.get('path') ?? ''}" is a directory`);
          refusePrivate(t.root, t.path, ctx.query.get('path') ?? '');
          return { raw: { contentType: 'text/plain; charset=utf-8', body: readFileSync(t.path) } };
        },
      },
    },
  },
];
