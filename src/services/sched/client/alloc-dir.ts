/**
 * The allocation directory (reference/sched-workloads.md "Client agent"):
 *
 * ```text
 * <alloc_dir>/<alloc id>/alloc/{data,logs,tmp}     shared by the group's tasks
 * <alloc_dir>/<alloc id>/<task>/{local,secrets,tmp}   one per task (secrets: mode 0700)
 * ```
 *
 * and the confinement of the file-system endpoints' paths to it: a path may not leave it,
 * by `..` or through a symbolic link.
 *
 * @module
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { CairnError } from '../../../kernel/http/index.js';

/** Paths of one allocation's directory. */
export interface AllocDir {
  /** `<alloc_dir>/<alloc id>`. */
  readonly root: string;
  /** `<root>/alloc`: the group's shared directory. */
  readonly shared: string;
  /** `<root>/alloc/logs`. */
  readonly logs: string;
  /** `<root>/<task>`. */
  taskDir(task: string): string;
}

/** The directory of allocation `allocId` under `allocRoot` (nothing created). */
export function allocDir(allocRoot: string, allocId: string): AllocDir {
  const root = join(allocRoot, allocId);
  return { root, shared: join(root, 'alloc'), logs: join(root, 'alloc', 'logs'), taskDir: (task) => join(root, task) };
}

/** Can task `name` be a directory of the allocation directory: not empty, `.`, `..` or the shared `alloc`, no `/` or NUL (jobs/validate.ts refuses the same on register)? */
export function taskDirNameOk(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && name !== 'alloc' && !name.includes('/') && !name.includes('\0');
}

/** Creates the shared directories and those of `tasks` (mode 0755; `secrets` 0700). Idempotent. */
export function buildAllocDir(dir: AllocDir, tasks: readonly string[]): void {
  for (const d of ['data', 'logs', 'tmp']) mkdirSync(join(dir.shared, d), { recursive: true, mode: 0o755 });
  for (const t of tasks) {
    mkdirSync(join(dir.taskDir(t), 'local'), { recursive: true, mode: 0o755 });
    mkdirSync(join(dir.taskDir(t), 'tmp'), { recursive: true, mode: 0o755 });
    mkdirSync(join(dir.taskDir(t), 'secrets'), { recursive: true, mode: 0o700 });
  }
}

/** 400 `path "<p>" escapes the allocation directory`. */
const escapes = (p: string) => new CairnError('bad_request', `path "${p}" escapes the allocation directory`);

/**
 * The absolute path of `given` (relative to the allocation directory `root`; a leading `/`
 * means `root`), after checking that neither `..` nor a symbolic link on the way leads out
 * of `root`. @throws 400 `path "<p>" escapes the allocation directory`; 404 `file "<p>" not
 * found` when it does not exist.
 */
export function confinedPath(root: string, given: string): string {
  const rel = normalize(given.replace(/^\/+/, '') || '.');
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) throw escapes(given);
  const lexical = resolve(root, rel);
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(lexical);
  } catch {
    throw new CairnError('not_found', `file "${given}" not found`);
  }
  const inside = relative(realRoot, real);
  if (inside.startsWith('..') || isAbsolute(inside)) throw escapes(given);
  return real;
}

/**
 * Which of a task's private directories `real` (a path {@link confinedPath} returned under
 * `root`) is in: `secret` for `<task>/secrets/…`, `private` for `<task>/private/…` (tokens,
 * rendered secrets: never served by the fs endpoints, as the reference's `ReadAt`; compared
 * without case like it), else undefined. The shared `alloc/` directory has neither.
 */
export function privateArea(root: string, real: string): 'secret' | 'private' | undefined {
  const [top, second] = relative(realpathSync(root), real).split(sep);
  if (top === undefined || top === 'alloc' || second === undefined) return undefined;
  const dir = second.toLowerCase();
  return dir === 'secrets' ? 'secret' : dir === 'private' ? 'private' : undefined;
}
