/**
 * Secret values in config files: `env://VAR` reads the variable, `file://PATH` the file
 * (trailing newline removed), anything else is the value itself — the reference
 * products' `parseutil.ParsePath` convention, which keeps tokens out of config files.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** Environment variables `env://` references are read from (the CLI passes the process's). */
export type ConfigEnv = Readonly<Record<string, string | undefined>>;

/**
 * Resolves `value` (see the module doc).
 * @throws {Error} when the variable is unset, the file unreadable, or the result empty
 *   (the message says which; callers prefix the key and line).
 */
export function resolveSecretRef(value: string, env: ConfigEnv): string {
  let out = value;
  if (value.startsWith('env://')) {
    const name = value.slice('env://'.length);
    out = env[name] ?? '';
    if (out === '') throw new Error(`environment variable "${name}" is not set or empty`);
  } else if (value.startsWith('file://')) {
    const path = value.slice('file://'.length);
    try {
      out = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new Error(`cannot read "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (out.trim() === '') throw new Error('must not be empty');
  return out;
}
