/**
 * The discovery service's ACL rules language (reference/mesh.md §6.4 "HCL parse errors of
 * Rules"; the reference's `acl/policy.go`): HCL v1 or the equivalent JSON,
 *
 * ```hcl
 * acl      = "write"            # also operator, keyring, mesh, peering
 * service_prefix "" { policy = "read" }
 * service "web" {
 *   policy     = "write"
 *   intentions = "read"         # service and service_prefix only
 * }
 * key_prefix "app/" { policy = "list" }   # list: key and key_prefix only
 * ```
 *
 * with the blocks `agent`, `event`, `key`, `node`, `query`, `service`, `session` and
 * their `_prefix` forms. Levels are `read`, `write`, `deny` (and `list` for keys), any
 * case, as the reference's `AccessLevelFromString`. Error texts keep the reference's
 * openings (`Failed to parse ACL rules: …` for syntax, `Invalid <block> policy: …` for a
 * bad level) and add the line. Deliberately stricter than the reference, which ignores
 * them silently: an unknown key, a block without its label and a non-string level are
 * errors naming the key and line; Enterprise-only keys (`namespace`, `partition`,
 * `sentinel`, …) count as unknown.
 *
 * @module
 */
import { cfg, ConfigError, parseConfig, syntaxErrorText, type BlockAt, type BlockBody, type Labelled } from '../../../kernel/config/index.js';

/** An access level a rule grants (`list` is valid in key rules only). */
export type Level = 'read' | 'list' | 'write' | 'deny';

/** Resources with one rule for the whole datacenter: `acl = "write"`. */
const GLOBAL_RESOURCES = ['acl', 'operator', 'keyring', 'mesh', 'peering'] as const;
/** One of {@link GLOBAL_RESOURCES}. */
export type GlobalResource = (typeof GLOBAL_RESOURCES)[number];

/** Resources whose rules name a segment, exactly (`service "web"`) or by prefix (`service_prefix "w"`). */
const SEGMENT_RESOURCES = ['agent', 'event', 'key', 'node', 'query', 'service', 'session'] as const;
/** One of {@link SEGMENT_RESOURCES}. */
export type SegmentResource = (typeof SEGMENT_RESOURCES)[number];

/** One `service "web" { … }` or `service_prefix "" { … }` block after parsing. */
interface SegmentRule {
  readonly resource: SegmentResource;
  /** The block's label: the exact name, or the prefix (`""` matches everything). */
  readonly segment: string;
  /** True for the `_prefix` form. */
  readonly prefix: boolean;
  /** Lower-cased level. */
  readonly policy: Level;
  /**
   * `intentions = "…"` of a service rule, lower-cased; absent when not written (the
   * authorizer then derives it from `policy`, as the reference does).
   */
  readonly intentions?: Level;
}

/** A parsed rules document. */
export interface ParsedRules {
  /** The global levels that were set (an empty string counts as not set, as in the reference). */
  readonly global: Readonly<Partial<Record<GlobalResource, Level>>>;
  /** Segment rules in the reference's validation order (agent, key, node, service, session, event, query). */
  readonly rules: readonly SegmentRule[];
}

/**
 * Rules that cannot be used; the message is safe to show (the HTTP layer answers 500
 * with it, reference/mesh.md §0.4). Examples:
 * `Failed to parse ACL rules: At 3:2: object expected closing RBRACE got: EOF`,
 * `Failed to parse ACL rules: line 2: unknown key "polcy" in service "web"`,
 * `Invalid service policy: service "web": "admin" is not read, write or deny (line 2)`.
 */
export class RulesError extends Error {
  override readonly name = 'RulesError';

  constructor(
    message: string,
    /** 1-based line of the problem, when known. */
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

const rule = () => cfg.labelled({ policy: cfg.string() }, { repeated: true });
const serviceRule = () => cfg.labelled({ policy: cfg.string(), intentions: cfg.string() }, { repeated: true });

// Key order is the reference's validation order, so the first error reported matches it.
const SCHEMA = {
  acl: cfg.string(),
  agent: rule(),
  agent_prefix: rule(),
  key: rule(),
  key_prefix: rule(),
  node: rule(),
  node_prefix: rule(),
  service: serviceRule(),
  service_prefix: serviceRule(),
  session: rule(),
  session_prefix: rule(),
  event: rule(),
  event_prefix: rule(),
  query: rule(),
  query_prefix: rule(),
  keyring: cfg.string(),
  operator: cfg.string(),
  mesh: cfg.string(),
  peering: cfg.string(),
};

type Doc = BlockBody<typeof SCHEMA>;
type RuleBlock = Labelled<string, { readonly policy: string | undefined; readonly intentions?: string | undefined; readonly $at: BlockAt }>;

const LEVELS: readonly Level[] = ['read', 'write', 'deny'];
const KEY_LEVELS: readonly Level[] = ['read', 'list', 'write', 'deny'];

/**
 * Parses a rules document (HCL v1, or JSON when it starts with `{`). Empty text (or only
 * comments) is a valid document without rules.
 *
 * @throws {RulesError} on a syntax error, an unknown key, a value of the wrong type, a
 *   block without label, a missing or unknown level (messages: {@link RulesError}).
 */
export function parseRules(text: string): ParsedRules {
  const doc = decode(text);
  const global: Partial<Record<GlobalResource, Level>> = {};
  const rules: SegmentRule[] = [];
  const globalLevel = (resource: GlobalResource) => {
    const written = doc[resource];
    if (written === undefined || written === '') return;
    const level = toLevel(written, LEVELS);
    if (!level) throw invalid(`Invalid ${resource} policy: ${JSON.stringify(written)} is not read, write or deny`, doc.$at.keyLines[resource]);
    global[resource] = level;
  };
  globalLevel('acl');
  for (const resource of ['agent', 'key', 'node', 'service', 'session', 'event', 'query'] as const) {
    for (const prefix of [false, true]) {
      const kind = prefix ? `${resource}_prefix` : resource;
      for (const block of doc[kind as keyof Doc] as readonly RuleBlock[]) rules.push(segmentRule(resource, kind, prefix, block));
    }
  }
  for (const resource of ['keyring', 'operator', 'mesh', 'peering'] as const) globalLevel(resource);
  return { global, rules };
}

function segmentRule(resource: SegmentResource, kind: string, prefix: boolean, block: RuleBlock): SegmentRule {
  const { label, body } = block;
  const where = `${kind} ${JSON.stringify(label)}`;
  const allowed = resource === 'key' ? KEY_LEVELS : LEVELS;
  const policy = body.policy === undefined ? undefined : toLevel(body.policy, allowed);
  if (!policy) {
    const why = body.policy === undefined ? 'no policy is set' : `${JSON.stringify(body.policy)} is not ${spell(allowed)}`;
    throw invalid(`Invalid ${kind} policy: ${where}: ${why}`, body.$at.keyLines.policy ?? body.$at.line);
  }
  if (body.intentions === undefined || body.intentions === '') return { resource, segment: label, prefix, policy };
  const intentions = toLevel(body.intentions, LEVELS);
  if (!intentions) {
    const why = `${JSON.stringify(body.intentions)} is not ${spell(LEVELS)}`;
    throw invalid(`Invalid ${kind} intentions policy: ${where}: ${why}`, body.$at.keyLines.intentions);
  }
  return { resource, segment: label, prefix, policy, intentions };
}

/** Runs the kernel's HCL/JSON loader against {@link SCHEMA}, rewording its errors. */
function decode(text: string): Doc {
  try {
    return parseConfig(text, 'rules', SCHEMA);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const first = err.issues[0];
    const syntax = syntaxErrorText(first);
    if (syntax) throw new RulesError(`Failed to parse ACL rules: ${syntax}`, first.line);
    throw new RulesError(`Failed to parse ACL rules: line ${first.line}: ${first.message}`, first.line);
  }
}

function toLevel(written: string, allowed: readonly Level[]): Level | undefined {
  const lower = written.toLowerCase();
  return allowed.find((l) => l === lower);
}

function spell(levels: readonly Level[]): string {
  return `${levels.slice(0, -1).join(', ')} or ${levels[levels.length - 1]}`;
}

function invalid(message: string, line: number | undefined): RulesError {
  return new RulesError(line === undefined ? message : `${message} (line ${line})`, line);
}
