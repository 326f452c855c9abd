/**
 * Parsing ACL policies (reference/secrets.md §5.1): HCL or the equivalent JSON,
 *
 * ```hcl
 * path "secret/data/*" { capabilities = ["create", "read", "update", "delete", "list"] }
 * path "secret/data/super" { capabilities = ["deny"] }
 * path "secret/old" { policy = "read" }   # legacy: read | write | sudo | deny
 * ```
 *
 * Rules as in the reference's `policy.go`: a leading `/` is stripped, `+*` is refused, an
 * unknown capability or key is an error naming it, `deny` wipes the other capabilities
 * of its rule. Cairn also refuses `*` anywhere but at the end (the reference would treat
 * it as a literal character, which never is what the author meant) and the keys it does
 * not enforce yet (`mfa_methods`, `control_group`), rather than ignore them.
 * Parameter constraints (`allowed_parameters`, …) are parsed by `params.ts`, wrap TTL
 * bounds (`min_wrapping_ttl`, `max_wrapping_ttl`) by `wrapping-ttl.ts`.
 *
 * @module
 */
import { checkDocumentBounds, HclSyntaxError, parseHcl } from '../../../kernel/config/index.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { PARAM_KEYS, parseConstraints, type ParamConstraints } from './params.js';
import { WRAPPING_KEYS, parseWrappingBounds, type WrappingBounds } from './wrapping-ttl.js';
import { checkTemplates, isTemplated } from './template.js';

/** The capabilities a rule may grant (reference/secrets.md §5.1). */
export type Capability = 'create' | 'read' | 'update' | 'delete' | 'list' | 'patch' | 'sudo' | 'deny';

/** Every {@link Capability}, in the reference's order. */
const CAPABILITIES: readonly Capability[] = ['create', 'read', 'update', 'delete', 'list', 'patch', 'sudo', 'deny'];

/** Legacy `policy = "…"` values and the capabilities they stand for (reference `policy.go`). */
const LEGACY: Readonly<Record<string, readonly Capability[]>> = {
  deny: ['deny'],
  read: ['read', 'list'],
  write: ['create', 'read', 'update', 'delete', 'list'],
  sudo: ['create', 'read', 'update', 'delete', 'list', 'sudo'],
};

/** Keys of a `path` block the reference knows but Cairn does not enforce yet: refused. */
const UNSUPPORTED = ['mfa_methods', 'control_group'];

/** One `path` block after parsing. */
interface PathRule {
  /**
   * The pattern, leading `/` stripped, relative to the policy's namespace (the ACL check
   * makes request paths relative to it, reference/secrets.md §6); may end in `*`
   * (prefix glob) and contain `+` segments (exactly one segment).
   */
  readonly pattern: string;
  /** Granted capabilities; `deny` alone when the rule denies. May be empty (grants nothing). */
  readonly capabilities: ReadonlySet<Capability>;
  /** Parameter constraints on the request's data; undefined when the rule has none. */
  readonly params?: ParamConstraints;
  /** Wrap TTL bounds; undefined when the rule has none. */
  readonly wrapping?: WrappingBounds;
  /** True: `pattern` holds templates, filled in per token (template.ts). */
  readonly templated?: true;
}

/** A parsed policy. */
export interface Policy {
  /** Lower-cased name. */
  readonly name: string;
  /** The text as written (HCL or JSON). */
  readonly text: string;
  /** Rules in document order; the same pattern may occur more than once. */
  readonly rules: readonly PathRule[];
}

/**
 * A policy text that cannot be parsed. Messages follow the reference:
 * `failed to parse policy: path "x": invalid capability "y"`, or for syntax errors
 * `failed to parse policy: line 4, column 2: object expected closing RBRACE got: EOF`.
 */
export class PolicyParseError extends Error {
  override readonly name = 'PolicyParseError';

  constructor(detail: string) {
    super(`failed to parse policy: ${detail}`);
  }
}

type Obj = Record<string, unknown>;

/**
 * Entries of a block value: HCL1 gives a list of objects (one per block), JSON may give
 * an object or a list of objects. `undefined` when `v` is not block-shaped.
 */
function entries(v: unknown): [string, unknown][] | undefined {
  const list = Array.isArray(v) ? v : [v];
  if (!list.every(isObject)) return undefined;
  return list.flatMap((o) => Object.entries(o));
}

/** The single object of a block body (`[{…}]` or `{…}`); `undefined` otherwise. */
function body(v: unknown): Obj | undefined {
  if (isObject(v)) return v;
  if (Array.isArray(v) && v.length === 1 && isObject(v[0])) return v[0];
  return undefined;
}

/**
 * The document of a policy written as valid JSON; undefined for anything else (HCL, or
 * JSON with a syntax error, which `parseHcl` then reports with line and column). The
 * HCL parser's JSON mode drops booleans from lists, which would silently shorten a
 * `denied_parameters` value list.
 */
function jsonDocument(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    // Over the kernel's size or depth bound: parseHcl refuses it, naming the line.
    checkDocumentBounds(text, '', 'json');
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Parses a policy from HCL or JSON text.
 *
 * @throws {PolicyParseError} on a syntax error (with line and column), an unknown key
 *   (`invalid key "k"`), a `path` that is not a block, a bad pattern, an unknown
 *   capability or legacy policy value, a malformed parameter constraint, or an
 *   unsupported key (`mfa_methods`, `control_group`), a bad wrap TTL bound.
 */
export function parsePolicy(name: string, text: string): Policy {
  let doc: unknown;
  try {
    doc = jsonDocument(text) ?? parseHcl(text, `policy "${name}"`);
  } catch (err) {
    if (!(err instanceof HclSyntaxError)) throw err;
    throw new PolicyParseError(err.line === undefined ? err.reason : `line ${err.line}, column ${err.column}: ${err.reason}`);
  }
  if (!isObject(doc)) throw new PolicyParseError('the policy must be an object of "path" blocks');
  for (const key of Object.keys(doc)) {
    if (key !== 'path' && key !== 'name') throw new PolicyParseError(`invalid key "${key}"`);
  }
  const rules: PathRule[] = [];
  if (doc.path !== undefined) {
    const blocks = entries(doc.path);
    if (!blocks) throw new PolicyParseError('"path" must be a block: path "<pattern>" { capabilities = [...] }');
    for (const [written, value] of blocks) rules.push(parseRule(written, value));
  }
  return { name, text, rules };
}

function parseRule(written: string, value: unknown): PathRule {
  const fail = (detail: string) => new PolicyParseError(`path "${written}": ${detail}`);
  const b = body(value);
  if (!b) throw fail('must be a block: path "<pattern>" { capabilities = [...] }');
  for (const key of Object.keys(b)) {
    if (UNSUPPORTED.includes(key)) throw fail(`"${key}" is not supported`);
    if (key !== 'capabilities' && key !== 'policy' && key !== 'comment' && !PARAM_KEYS.includes(key) && !WRAPPING_KEYS.includes(key))
      throw fail(`invalid key "${key}"`);
  }
  const pattern = written.startsWith('/') ? written.slice(1) : written;
  if (pattern.includes('+*')) throw fail("invalid use of wildcards ('+*' is forbidden)");
  if (pattern.slice(0, -1).includes('*')) throw fail('"*" is only allowed as the last character');
  const templated = isTemplated(pattern);
  if (templated) {
    try {
      checkTemplates(pattern);
    } catch (err) {
      throw fail((err as Error).message);
    }
  }

  const caps: string[] = [];
  if (b.capabilities !== undefined) {
    if (!Array.isArray(b.capabilities) || !b.capabilities.every((c) => typeof c === 'string')) throw fail('"capabilities" must be a list of strings');
    caps.push(...(b.capabilities as string[]));
  }
  if (b.policy !== undefined) {
    const legacy = typeof b.policy === 'string' ? LEGACY[b.policy] : undefined;
    if (!legacy) throw fail(`invalid policy ${JSON.stringify(b.policy)}`);
    caps.push(...legacy);
  }
  const set = new Set<Capability>();
  for (const c of caps) {
    if (!(CAPABILITIES as readonly string[]).includes(c)) throw fail(`invalid capability "${c}"`);
    set.add(c as Capability);
  }
  let params: ParamConstraints | undefined;
  let wrapping: WrappingBounds | undefined;
  try {
    params = parseConstraints(b);
    wrapping = parseWrappingBounds(b);
  } catch (err) {
    throw fail((err as Error).message);
  }
  // A deny rule grants nothing, so its constraints never apply (the reference drops them when merging).
  const mark = templated ? { templated: true as const } : {};
  if (set.has('deny')) return { pattern, capabilities: new Set<Capability>(['deny']), ...mark };
  return { pattern, capabilities: set, ...(params ? { params } : {}), ...(wrapping ? { wrapping } : {}), ...mark };
}
