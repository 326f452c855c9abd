/**
 * Where a template reads its `source` and writes its `destination` (reference/integration.md
 * §3; the reference's `parseTemplateConfigs`): both are interpolated with the task's
 * environment (`${CAIRN_SECRETS_DIR}/db.env`, client/interpolate.ts), taken relative to the
 * task directory, and must stay inside it — lexically (no `..` out) and once symbolic links
 * are resolved (a `local/x` that is a link to `/etc` is refused), as the reference's
 * `template destination path escapes alloc directory`. An absolute path inside the task
 * directory (what `${CAIRN_SECRETS_DIR}` gives on this client) is taken as is; any other
 * absolute path is joined under the task directory as the reference does.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { interpolate, type NodeVars } from '../interpolate.js';

/** Largest `source` file read (bytes; the engine bounds the text again). */
const MAX_SOURCE_BYTES = 1024 * 1024;

const inside = (root: string, p: string): boolean => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** The deepest existing ancestor of `p` (itself included), resolved through links. */
function realAncestor(p: string): { real: string; rest: string } {
  let at = p;
  let rest = '';
  for (;;) {
    try {
      return { real: realpathSync(at), rest };
    } catch {
      const up = dirname(at);
      if (up === at) return { real: at, rest };
      rest = rest === '' ? basename(at) : join(basename(at), rest);
      at = up;
    }
  }
}

/**
 * The absolute path `given` names under `taskDir` (module doc), links resolved as far as the
 * path exists. @throws Error `template <what> path escapes the task directory: "<given>"`.
 */
export function confinedTaskPath(taskDir: string, given: string, o: { env: Readonly<Record<string, string>>; node: NodeVars; what: string }): string {
  const root = resolve(taskDir);
  const text = interpolate(given, o.env, o.node);
  const lexical = isAbsolute(text) && inside(root, resolve(text)) ? resolve(text) : resolve(join(root, text));
  const escape = new Error(`template ${o.what} path escapes the task directory: "${given}"`);
  if (!inside(root, lexical) || lexical === root) throw escape;
  const realRoot = realpathSync(root);
  const { real, rest } = realAncestor(lexical);
  const full = rest === '' ? real : join(real, rest);
  if (!inside(realRoot, full)) throw escape;
  return full;
}

/** The text of a template's `source` file at `path` (confined already). @throws Error when it is missing, not a file, or larger than 1 MiB. */
export function readSourceFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new Error(`source "${path}" cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`source "${path}" is not a file`);
    if (st.size > MAX_SOURCE_BYTES) throw new Error(`source "${path}" is larger than ${MAX_SOURCE_BYTES} bytes`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
