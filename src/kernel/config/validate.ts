/**
 * Checks a parsed config document against a declared schema (schema.ts) and builds the
 * typed value. Walks both shapes a document can have: HCL1's list-wrapped blocks
 * (`listener: [{tcp: [{…}]}]`) and plain JSON (`listener: {tcp: {…}}` or lists of
 * those). Every problem becomes a {@link ConfigIssue} naming file, line and key; all are
 * collected and thrown together as one {@link ConfigError}.
 *
 * @module
 */
import { InputError, parseDuration } from '../util/duration.js';
import { lineAt, type PathStep, type PosNode } from './positions.js';
import { ConfigError, type BlockAt, type BlockField, type ConfigIssue, type ConfigOf, type Field, type Keys } from './schema.js';
import { isObject } from '../util/is-object.js';
import { parseGoBool } from '../util/go-bool.js';

/** Where the document came from, for error lines. */
export interface SourceInfo {
  /** File name as the user gave it (it prefixes every message). */
  readonly file: string;
  /** Format of the text the positions were scanned from. */
  readonly format: 'hcl' | 'json';
  /** Position tree of the text (`scanPositions`). */
  readonly positions: PosNode;
}

interface Ctx extends SourceInfo {
  readonly issues: ConfigIssue[];
}

/**
 * Validates `doc` (the output of `parseHcl` or `JSON.parse`) against the top-level
 * `keys`. Unknown keys, wrong types, bad enum values, missing required keys and repeated
 * single blocks are errors; absent optional keys take their default.
 *
 * @throws {ConfigError} listing every issue, sorted by line.
 */
export function validateConfig<K extends Keys>(doc: unknown, keys: K, source: SourceInfo): ConfigOf<K> {
  const ctx: Ctx = { ...source, issues: [] };
  if (!isObject(doc)) {
    throw new ConfigError([{ file: source.file, line: 1, key: undefined, message: 'the document must be an object of keys' }]);
  }
  const out = body(ctx, doc, keys, { path: [], where: '', line: 1 });
  if (ctx.issues.length > 0) throw new ConfigError(ctx.issues);
  return out as ConfigOf<K>;
}

function issue(ctx: Ctx, line: number, key: string | undefined, message: string): void {
  ctx.issues.push({ file: ctx.file, line, key, message });
}

const lineOf = (ctx: Ctx, path: readonly PathStep[]) => lineAt(ctx.positions, path, ctx.format);
const inWhere = (where: string) => (where === '' ? '' : ` in ${where}`);

/** Where a block body sits: its path from the root, its name for messages ('' at the top) and its line. */
interface BodyAt {
  readonly path: PathStep[];
  readonly where: string;
  readonly line: number;
}

/** One block body: unknown keys, then every declared key. */
function body(ctx: Ctx, obj: Record<string, unknown>, keys: Keys, { path, where, line }: BodyAt): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keyLines: Record<string, number> = {};
  for (const key of Object.keys(obj)) {
    const keyLine = lineOf(ctx, [...path, key]);
    keyLines[key] = keyLine;
    if (!Object.hasOwn(keys, key) || key === '$at') issue(ctx, keyLine, key, `unknown key "${key}"${inWhere(where)}`);
  }
  for (const [key, f] of Object.entries(keys)) {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (f.required) issue(ctx, line, key, `missing required ${f.kind === 'block' ? 'block' : 'key'} "${key}"${inWhere(where)}`);
      out[key] = f.kind === 'block' ? (f.repeated ? [] : undefined) : 'default' in f ? f.default : undefined;
      continue;
    }
    out[key] = f.kind === 'block' ? blocks(ctx, f, v, { name: key, path: [...path, key], parent: where }) : scalar(ctx, f, v, { key, path: [...path, key] });
  }
  const at: BlockAt = { file: ctx.file, line, where, keyLines };
  Object.defineProperty(out, '$at', { value: at, enumerable: false });
  return out;
}

/** Elements of a value that may or may not be list-wrapped, with the path of each. */
function elements(v: unknown, path: PathStep[]): Array<{ value: unknown; path: PathStep[] }> {
  return Array.isArray(v) ? v.map((value, i) => ({ value, path: [...path, i] })) : [{ value: v, path }];
}

/** Every occurrence of block `name` at `path` inside block `parent`, checked; one value unless `repeated`. */
function blocks(ctx: Ctx, f: BlockField, v: unknown, { name, path, parent }: { name: string; path: PathStep[]; parent: string }): unknown {
  const found: Array<{ value: unknown; line: number }> = [];
  const labelled = f.labelled === true || f.variants !== undefined;
  for (const el of elements(v, path)) {
    const line = lineOf(ctx, el.path);
    if (!isObject(el.value)) {
      issue(ctx, line, name, `"${name}" must be a block${inWhere(parent)}`);
      continue;
    }
    if (!labelled) {
      found.push({ value: body(ctx, el.value, f.keys ?? {}, { path: el.path, where: name, line }), line });
      continue;
    }
    if (Object.keys(el.value).length === 0) issue(ctx, line, name, `"${name}" needs a label, as in ${name} "${exampleLabel(f)}" { … }`);
    for (const [label, inner] of Object.entries(el.value)) {
      const labelPath = [...el.path, label];
      for (const b of elements(inner, labelPath)) {
        const bLine = lineOf(ctx, b.path);
        if (!isObject(b.value)) {
          issue(ctx, bLine, name, `"${name}" needs a label, as in ${name} "${exampleLabel(f)}" { … }`);
          continue;
        }
        const allowed = f.variants ? Object.keys(f.variants) : f.labels;
        if (allowed && !allowed.includes(label)) {
          issue(ctx, bLine, name, `unknown ${name} type "${label}": expected ${oneOf(allowed)}`);
          continue;
        }
        const keys = f.variants ? f.variants[label] : (f.keys ?? {});
        found.push({ value: { label, body: body(ctx, b.value, keys, { path: b.path, where: `${name} "${label}"`, line: bLine }) }, line: bLine });
      }
    }
  }
  if (f.repeated) return found.map((x) => x.value);
  if (found.length > 1) issue(ctx, found[1].line, name, `only one "${name}" block is allowed${inWhere(parent)}`);
  return found[0]?.value;
}

function exampleLabel(f: BlockField): string {
  return f.labels?.[0] ?? Object.keys(f.variants ?? {})[0] ?? 'name';
}

function oneOf(values: readonly string[]): string {
  return values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
}

/** A scalar or list field `key` at `path`; on a bad value records an issue and returns undefined. */
function scalar(ctx: Ctx, f: Exclude<Field, BlockField>, v: unknown, { key, path }: { key: string; path: PathStep[] }): unknown {
  const bad = (message: string, at: PathStep[] = path) => {
    issue(ctx, lineOf(ctx, at), key, `"${key}" ${message}`);
    return undefined;
  };
  switch (f.kind) {
    case 'raw':
      return v;
    case 'string': {
      if (typeof v !== 'string') return bad('must be a string');
      if (!f.enum) return v;
      const match = f.enum.find((e) => e === v || (f.ignoreCase === true && e.toLowerCase() === v.trim().toLowerCase()));
      return match ?? bad(`must be ${oneOf(f.enum)} (got "${v}")`);
    }
    case 'bool':
      if (typeof v === 'boolean') return v;
      return (typeof v === 'string' ? parseGoBool(v) : undefined) ?? bad('must be a boolean');
    case 'int': {
      const n = toInt(v);
      if (n === undefined) return bad('must be an integer');
      if (f.min !== undefined && n < f.min) return bad(`must be at least ${f.min}`);
      if (f.max !== undefined && n > f.max) return bad(`must be at most ${f.max}`);
      return n;
    }
    case 'duration': {
      let seconds: number;
      try {
        seconds = parseDuration(v, key);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        const reason = err.message.split(`for field "${key}": `).pop();
        return bad(`must be a duration such as "10s" or a number of seconds (${reason})`);
      }
      if (f.min !== undefined && seconds < f.min) return bad(`must be at least ${f.min}s`);
      return seconds;
    }
    case 'list': {
      if (!Array.isArray(v)) return bad(`must be a list of ${f.of}s`);
      const out: unknown[] = [];
      for (const [i, item] of v.entries()) {
        const x = f.of === 'int' ? toInt(item) : typeof item === 'string' ? item : undefined;
        if (x === undefined) return bad(`must be a list of ${f.of}s`, [...path, i]);
        out.push(x);
      }
      return out;
    }
    default: {
      const never: never = f;
      throw new Error(`unknown field kind ${JSON.stringify(never)}`);
    }
  }
}

/** A safe integer from a number or an integer string; undefined otherwise. */
function toInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[+-]?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}
