/**
 * Declared schemas for configuration files (DESIGN.md "Configuration"): each service
 * states its keys once, as data, and {@link validateConfig} (validate.ts) checks a parsed
 * HCL/JSON document against it and returns typed values.
 *
 * A schema is a map of keys to fields. Scalars: `string` (optionally an enum), `bool`,
 * `int` (sizes are ints in bytes), `duration` (seconds), `list` (of strings or ints),
 * `raw` (unchecked). Blocks: plain (`controller { … }`), labelled
 * (`listener "tcp" { … }`, one body schema for every label) or with variants
 * (`storage "sqlite" { path }` / `storage "postgresql" { connection_url }`, a body schema
 * per label); any block may be `repeated`. The builders in {@link cfg} keep literal
 * types so {@link ConfigOf} infers the validated value's type:
 *
 * ```ts
 * const schema = {
 *   listener: cfg.labelled({ address: cfg.string({ default: '127.0.0.1:8200' }),
 *                            tls_disable: cfg.bool() }, { labels: ['tcp'], repeated: true, required: true }),
 *   log_level: cfg.string({ enum: ['debug', 'info'], default: 'info' }),
 * };
 * type Config = ConfigOf<typeof schema>;
 * // { listener: { label: 'tcp'; body: { address: string; tls_disable: boolean | undefined } }[];
 * //   log_level: 'debug' | 'info' }
 * ```
 *
 * @module
 */

interface Common {
  /** Absent → an error naming the key (blocks: at least one occurrence). */
  readonly required?: boolean;
  /** One line for humans (help, generated docs). */
  readonly doc?: string;
}

/** A string; `enum` restricts the values (`ignoreCase` matches `"INFO"` to `"info"`). */
export interface StringField extends Common {
  readonly kind: 'string';
  readonly default?: string;
  readonly enum?: readonly string[];
  readonly ignoreCase?: boolean;
}
/** A boolean: `true`/`false`, or a string Go's `strconv.ParseBool` accepts (`"true"`, `"1"`, `"f"` …). */
export interface BoolField extends Common {
  readonly kind: 'bool';
  readonly default?: boolean;
}
/** A safe integer (also an integer string such as `"1024"`); sizes are ints in bytes. */
export interface IntField extends Common {
  readonly kind: 'int';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
/** A duration in whole seconds: `"10s"`, `"1h30m"`, `"2d"` or a number of seconds (`parseDuration`). */
export interface DurationField extends Common {
  readonly kind: 'duration';
  /** Seconds. */
  readonly default?: number;
  /** Smallest allowed value in seconds. */
  readonly min?: number;
}
/** A list of strings or of ints. */
export interface ListField extends Common {
  readonly kind: 'list';
  readonly of: 'string' | 'int';
  readonly default?: readonly string[] | readonly number[];
}
/** Any value, unchecked (for shapes the schema language cannot state; check it yourself). */
export interface RawField extends Common {
  readonly kind: 'raw';
}
/**
 * A block. Plain: `keys` only. Labelled: `labelled: true` with `keys` (and optionally the
 * allowed `labels`). With variants: `variants` maps each allowed label to its keys.
 * `repeated` allows several occurrences (value: an array, `[]` when absent).
 */
export interface BlockField extends Common {
  readonly kind: 'block';
  readonly keys?: Keys;
  readonly labelled?: boolean;
  readonly labels?: readonly string[];
  readonly variants?: Readonly<Record<string, Keys>>;
  readonly repeated?: boolean;
}

/** Any field of a schema. */
export type Field = StringField | BoolField | IntField | DurationField | ListField | RawField | BlockField;
/** A block body's schema (the top level of a file is one): key name → field. The key `$at` is reserved. */
export type Keys = { readonly [key: string]: Field };

/** Where a validated block came from; attached to every block body as the non-enumerable `$at`. */
export interface BlockAt {
  /** The file name as given to the loader. */
  readonly file: string;
  /** 1-based line of the block's first token (1 for the top level). */
  readonly line: number;
  /** `listener "tcp"`, `controller`, or `''` for the top level. */
  readonly where: string;
  /** 1-based line of each key present in the block. */
  readonly keyLines: Readonly<Record<string, number>>;
}

/** A labelled block occurrence: `listener "tcp" { … }` → `{ label: 'tcp', body }`. */
export interface Labelled<L extends string, B> {
  readonly label: L;
  readonly body: B;
}

type ScalarValue<F> = F extends { kind: 'string'; enum: readonly (infer E extends string)[] }
  ? E
  : F extends { kind: 'string' }
    ? string
    : F extends { kind: 'bool' }
      ? boolean
      : F extends { kind: 'int' | 'duration' }
        ? number
        : F extends { kind: 'list'; of: 'int' }
          ? number[]
          : F extends { kind: 'list' }
            ? string[]
            : unknown;

type Always<F> = F extends { required: true } ? true : F extends { default: unknown } ? true : false;

type LabelOf<F> = F extends { labels: readonly (infer E extends string)[] } ? E : string;

type OneBlock<F> = F extends { variants: infer V extends Readonly<Record<string, Keys>> }
  ? { [L in keyof V & string]: Labelled<L, BlockBody<V[L]>> }[keyof V & string]
  : F extends { labelled: true; keys: infer K extends Keys }
    ? Labelled<LabelOf<F>, BlockBody<K>>
    : F extends { keys: infer K extends Keys }
      ? BlockBody<K>
      : never;

/** The validated value of one field: absent optional fields without a default are `undefined`. */
type ValueOf<F> = F extends { kind: 'block' }
  ? F extends { repeated: true }
    ? OneBlock<F>[]
    : Always<F> extends true
      ? OneBlock<F>
      : OneBlock<F> | undefined
  : Always<F> extends true
    ? ScalarValue<F>
    : ScalarValue<F> | undefined;

/** A validated block body: one property per declared key, plus `$at` (non-enumerable). */
export type BlockBody<K extends Keys> = { readonly [P in keyof K]: ValueOf<K[P]> } & { readonly $at: BlockAt };

/** The validated value of a whole file declared by `K`. */
export type ConfigOf<K extends Keys> = BlockBody<K>;

type Opts<F> = Omit<F, 'kind'>;

/** Field builders that keep literal types for {@link ConfigOf}. Plain object literals `as const` work too. */
export const cfg = {
  /** A string; `{ enum: [...] }` narrows the type to the listed values. */
  string: <const O extends Opts<StringField> = {}>(o?: O) => ({ kind: 'string', ...o }) as { readonly kind: 'string' } & O,
  /** A boolean. */
  bool: <const O extends Opts<BoolField> = {}>(o?: O) => ({ kind: 'bool', ...o }) as { readonly kind: 'bool' } & O,
  /** An integer (sizes in bytes). */
  int: <const O extends Opts<IntField> = {}>(o?: O) => ({ kind: 'int', ...o }) as { readonly kind: 'int' } & O,
  /** A duration, validated to whole seconds. */
  duration: <const O extends Opts<DurationField> = {}>(o?: O) => ({ kind: 'duration', ...o }) as { readonly kind: 'duration' } & O,
  /** A list of `of` values. */
  list: <const T extends 'string' | 'int', const O extends Omit<Opts<ListField>, 'of'> = {}>(of: T, o?: O) =>
    ({ kind: 'list', of, ...o }) as { readonly kind: 'list'; readonly of: T } & O,
  /** Any value, unchecked. */
  raw: <const O extends Opts<RawField> = {}>(o?: O) => ({ kind: 'raw', ...o }) as { readonly kind: 'raw' } & O,
  /** A block without label: `name { … }`. */
  block: <const K extends Keys, const O extends Pick<BlockField, 'required' | 'doc' | 'repeated'> = {}>(keys: K, o?: O) =>
    ({ kind: 'block', keys, ...o }) as { readonly kind: 'block'; readonly keys: K } & O,
  /** A labelled block: `name "label" { … }`, the same keys for every label (`labels` restricts them). */
  labelled: <const K extends Keys, const O extends Pick<BlockField, 'required' | 'doc' | 'repeated' | 'labels'> = {}>(keys: K, o?: O) =>
    ({ kind: 'block', labelled: true, keys, ...o }) as { readonly kind: 'block'; readonly labelled: true; readonly keys: K } & O,
  /** A labelled block whose keys depend on the label: `{ sqlite: {...}, postgresql: {...} }`. */
  variants: <const V extends Readonly<Record<string, Keys>>, const O extends Pick<BlockField, 'required' | 'doc' | 'repeated'> = {}>(variants: V, o?: O) =>
    ({ kind: 'block', variants, ...o }) as { readonly kind: 'block'; readonly variants: V } & O,
};

/** One problem found in a config file. */
export interface ConfigIssue {
  readonly file: string;
  /** 1-based; undefined only when the file could not be read. */
  readonly line: number | undefined;
  /** The key (or block name) concerned, when there is one. */
  readonly key: string | undefined;
  readonly message: string;
  /** Set for a syntax error: the parser's column (when it gave one) and its own words. */
  readonly syntax?: { readonly column: number | undefined; readonly reason: string };
}

/**
 * A config file that cannot be used. `message` is the first issue (by line) as one line,
 * `<file>:<line>: <message>` — e.g. `secrets.hcl:7: unknown key "adress" in listener "tcp"`;
 * `issues` lists all of them.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    const sorted = [...issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const first = sorted[0];
    super(first === undefined ? 'invalid configuration' : formatIssue(first));
    this.issues = sorted;
  }

  /** The first issue's line. */
  get line(): number | undefined {
    return this.issues[0]?.line;
  }
}

/**
 * A syntax issue in the HCL library's own form, which the reference products pass on in
 * their rules errors: `At 3:2: <reason>`, or `line 3: <reason>` without a column; undefined
 * for other issues.
 */
export function syntaxErrorText(i: ConfigIssue): string | undefined {
  if (!i.syntax) return undefined;
  return `${i.syntax.column === undefined ? `line ${i.line}` : `At ${i.line}:${i.syntax.column}`}: ${i.syntax.reason}`;
}

/** `file:line: message` (or `file: message` without a line). */
export function formatIssue(i: ConfigIssue): string {
  return i.line === undefined ? `${i.file}: ${i.message}` : `${i.file}:${i.line}: ${i.message}`;
}

/**
 * A semantic error found after validation (e.g. `tls_cert_file` required when
 * `tls_disable` is false), placed at `key`'s line in the block, or at the block's line
 * when `key` is absent from it.
 */
export function blockError(at: BlockAt, key: string | undefined, message: string): ConfigError {
  const line = (key !== undefined ? at.keyLines[key] : undefined) ?? at.line;
  return new ConfigError([{ file: at.file, line, key, message }]);
}

/**
 * Reads a `name = "host:port"` block kept raw by {@link cfg.raw} (the discovery service's
 * `wan_addresses`, the scheduler's `region_addresses`; HCL gives a one-element list of the
 * object). `key` names the block; `own` is this agent's own datacenter or region (`what`),
 * which may not appear.
 * @throws {ConfigError} at `key`'s line: not a block, a value that is not host:port, `own` listed.
 */
export function addressBlock(value: unknown, at: BlockAt, { key, own, what }: { key: string; own: string; what: string }): Record<string, string> {
  if (value === undefined) return {};
  const obj = Array.isArray(value) && value.length === 1 ? value[0] : value;
  const bad = (m: string) => blockError(at, key, `"${key}": ${m}`);
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw bad(`expected a block of ${what} = "host:port"`);
  const out: Record<string, string> = {};
  for (const [name, addr] of Object.entries(obj as Record<string, unknown>)) {
    if (typeof addr !== 'string' || !/^(?:[^\s:[\]]+|\[[^\]]+\]):\d{1,5}$/.test(addr)) throw bad(`${name}: "${String(addr)}" is not host:port`);
    if (name === own) throw bad(`${name} is this agent's own ${what}`);
    out[name] = addr;
  }
  return out;
}
