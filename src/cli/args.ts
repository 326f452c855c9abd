/**
 * Pure argument helpers for the CLI: Go-style flag normalisation, mount/path splitting,
 * `k=v` data, version lists. No I/O except reading `@file` values through an injected reader.
 *
 * @module
 */
import { parseGoBool } from '../kernel/util/go-bool.js';

/** A mistake in how the command was called; the CLI prints it and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Which long flags are booleans and which take a value, so normalisation can treat the next argument right. */
export interface FlagKinds {
  /** Names without dashes (`cas-required`). A bare boolean flag becomes `--name=true`. */
  booleanFlags?: ReadonlySet<string>;
  /** Names without dashes (`field`). The argument after a bare value flag is left untouched. */
  valueFlags?: ReadonlySet<string>;
}

const NEGATIVE_NUMBER = /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/i;

/**
 * Rewrites the reference CLI's Go-style flags for commander: `-flag=value` → `--flag=value`,
 * `-flag value` → `--flag value`. Left alone: `-` (stdin), negative numbers, `-h`, everything
 * after `--`, and the argument following a value flag given without `=`. `-help` becomes `--help`.
 * Bare boolean flags get `=true` so that they never swallow the next argument, as in Go.
 */
export function normalizeArgs(argv: readonly string[], kinds: FlagKinds = {}): string[] {
  const out: string[] = [];
  let rest = false;
  let valueNext = false;
  for (const arg of argv) {
    if (rest || valueNext) {
      out.push(arg);
      valueNext = false;
      continue;
    }
    if (arg === '--') {
      rest = true;
      out.push(arg);
      continue;
    }
    if (arg === '-' || arg === '-h' || NEGATIVE_NUMBER.test(arg) || !arg.startsWith('-')) {
      out.push(arg);
      continue;
    }
    const long = arg.startsWith('--') ? arg : `-${arg}`;
    const eq = long.indexOf('=');
    const name = long.slice(2, eq === -1 ? undefined : eq);
    if (eq === -1 && kinds.booleanFlags?.has(name)) {
      out.push(`${long}=true`);
    } else {
      if (eq === -1 && kinds.valueFlags?.has(name)) valueNext = true;
      out.push(long);
    }
  }
  return out;
}

/**
 * For the commands that run another command (`mesh lock PREFIX CHILD…`, `mesh watch
 * [CHILD…]`): when `argv` starts with one of `paths`, a `--` goes before the first argument
 * after the command's flags, so the child's own flags (`sh -c …`) stay its own — Go's flag
 * parsing stops at the first non-flag argument. The argument after a value flag given
 * without `=` is the flag's value, not the first argument.
 */
export function endFlagsAtFirstArg(argv: readonly string[], paths: readonly (readonly string[])[], kinds: FlagKinds = {}): string[] {
  const path = paths.find((p) => p.every((word, i) => argv[i] === word));
  if (!path) return [...argv];
  for (let i = path.length; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-') && arg !== '-') {
      const name = arg.replace(/^--?/, '');
      if (!name.includes('=') && kinds.valueFlags?.has(name)) i++;
      continue;
    }
    return [...argv.slice(0, i), '--', ...argv.slice(i)];
  }
  return [...argv];
}

/** Go `strconv.ParseBool`. @throws UsageError for anything else. */
export function parseBool(value: string, flag: string): boolean {
  const b = parseGoBool(value);
  if (b !== undefined) return b;
  throw new UsageError(`invalid boolean value "${value}" for -${flag}`);
}

/** A `[bool]` flag's value: absent → `false`, bare (`true`/`null`) → `true`, else Go `ParseBool`. @throws UsageError otherwise. */
export function flagBool(value: unknown, flag: string): boolean {
  if (value === undefined || value === false) return false;
  return value === true || value === null || parseBool(String(value), flag);
}

/** A non-negative integer flag value. @throws UsageError otherwise. */
export function parseNonNegativeInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`invalid value "${value}" for -${flag}: expected a non-negative integer`);
  return Number(value.trim());
}

/** `"1,2, 3"` → `[1, 2, 3]`. @throws UsageError on empty lists or non-integers. */
export function parseVersions(value: string | undefined, flag = 'versions'): number[] {
  if (value === undefined || value.trim() === '') throw new UsageError(`no versions given: use -${flag}=1,2`);
  return value.split(',').map((v) => parseNonNegativeInt(v, flag));
}

/** A mount and a path inside it, both without surrounding `/`; `path` keeps a trailing `/` only when `keepTrailingSlash`. */
export interface MountPath {
  mount: string;
  path: string;
}

/**
 * Splits a KV path like the reference CLI: with `-mount=M`, `arg` is the path inside `M`;
 * otherwise the first segment of `arg` is the mount (`secret/app/db` → `secret` + `app/db`).
 *
 * @param allowEmptyPath `true` for listing, where the mount's root is a valid folder.
 * @throws UsageError when the mount or (unless allowed) the path is empty.
 */
export function splitMountPath(arg: string, mountFlag: string | undefined, allowEmptyPath = false): MountPath {
  const trim = (s: string) => s.replace(/^\/+|\/+$/g, '');
  let mount: string;
  let path: string;
  if (mountFlag !== undefined && mountFlag !== '') {
    mount = trim(mountFlag);
    path = trim(arg);
  } else {
    const clean = trim(arg);
    const slash = clean.indexOf('/');
    mount = slash === -1 ? clean : clean.slice(0, slash);
    path = slash === -1 ? '' : trim(clean.slice(slash + 1));
  }
  if (mount === '') throw new UsageError(`no mount in "${arg}": use MOUNT/PATH or -mount=MOUNT PATH`);
  if (path === '' && !allowEmptyPath) throw new UsageError(`no secret path in "${arg}": use MOUNT/PATH or -mount=MOUNT PATH`);
  return { mount, path };
}

/** Reads the file behind `@file` values; injected so tests need no files. */
export type FileReader = (path: string) => string;

/**
 * Turns `k=v` arguments into an object, like the reference CLI: the first `=` splits;
 * `k=@file` takes the file's contents; an argument `@file.json` merges a JSON object from a file.
 * Later keys win.
 *
 * @throws UsageError for an argument without `=` or a JSON file that is not an object.
 */
export function parseKeyValues(args: readonly string[], readFile: FileReader): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of args) {
    if (arg.startsWith('@')) {
      Object.assign(out, parseJsonObject(readFile(arg.slice(1)), arg));
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid key/value pair "${arg}": format must be key=value`);
    const key = arg.slice(0, eq);
    const value = arg.slice(eq + 1);
    out[key] = value.startsWith('@') && value.length > 1 ? readFile(value.slice(1)) : value;
  }
  return out;
}

/** `text` as a JSON object. @throws UsageError naming `source` otherwise. */
export function parseJsonObject(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source}: invalid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${source}: expected a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Accumulator for repeatable `-flag=k=v` options (commander `argParser`). @throws UsageError without `=`. */
export function collectPair(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`invalid key/value pair "${value}": format must be key=value`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** Accumulator for repeatable list options such as `-policy=a -policy=b,c`. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ];
}
