/**
 * The scheduler's ACL policy language (reference/sched.md §1.3 and §4; the reference's
 * `acl/policy.go` `Parse`): HCL v1 or the equivalent JSON,
 *
 * ```hcl
 * namespace "default" {
 *   policy       = "read"                      # deny | read | write | scale
 *   capabilities = ["submit-job", "csi-write-volume"]
 *   variables {
 *     path "project/*" { capabilities = ["read", "write"] }
 *   }
 * }
 * namespace "prod-*" { policy = "deny" }       # names may be globs
 * host_volume "ssd-*" { policy = "write" }     # or capabilities = ["mount-readonly"]
 * node     { policy = "read" }                 # also agent, operator, quota
 * plugin   { policy = "list" }                 # deny | read | list
 * ```
 *
 * A `policy` shorthand is expanded into capabilities and added to the written ones
 * (capabilities.ts), so every namespace and host-volume rule carries its full capability
 * set. Levels and capabilities are case-sensitive, as in the reference.
 *
 * Error texts keep the reference's openings (`Failed to parse ACL Policy: …`,
 * `Invalid policy: …`, `Invalid namespace name: …`, `Invalid namespace policy: …`,
 * `Invalid namespace capability '<cap>': …`, `Invalid or duplicate policy keys: …`, …)
 * and, where the reference prints a Go struct with `%#v`, name the block instead; the
 * line is appended. Deliberately stricter than the reference, which ignores them: an
 * unknown key inside a block is an error too, and `operator` takes no `capabilities`
 * (the authorizer the reference pairs with this language never reads them).
 *
 * @module
 */
import { cfg, ConfigError, parseConfig, syntaxErrorText, type BlockBody } from '../../../kernel/config/index.js';
import {
  expandHostVolumePolicy,
  expandNamespacePolicy,
  expandVariableCapabilities,
  HOST_VOLUME_CAPABILITIES,
  impliedNamespaceCapabilities,
  NAMESPACE_CAPABILITIES,
  PLUGIN_LEVELS,
  POLICY_LEVELS,
  VARIABLE_CAPABILITIES,
  type HostVolumeCapability,
  type NamespaceCapability,
  type PluginLevel,
  type PolicyLevel,
  type VariableCapability,
} from './capabilities.js';

/** One `path "<spec>" { capabilities = […] }` of a namespace's `variables` block, expanded. */
interface VariablePathRule {
  /** The path, possibly a glob (`project/*`); never starts with `/`. */
  readonly path: string;
  readonly capabilities: readonly VariableCapability[];
}

/** One `namespace "<name or glob>" { … }` block after parsing. */
interface NamespaceRule {
  /** The label: a name or a glob (`*` anywhere), matching `^[a-zA-Z0-9-*]{1,128}$`. */
  readonly name: string;
  /** The shorthand as written, when written. */
  readonly policy?: PolicyLevel;
  /** Written capabilities, then the shorthand's, then the implied ones; without duplicates. */
  readonly capabilities: readonly NamespaceCapability[];
  /** The `variables` paths, when the block is written (never empty then). */
  readonly variables?: readonly VariablePathRule[];
}

/** One `host_volume "<name or glob>" { … }` block after parsing. */
interface HostVolumeRule {
  /** The label: a name or a glob, matching `^[a-zA-Z0-9-*]{1,128}$`. */
  readonly name: string;
  /** The shorthand as written, when written. */
  readonly policy?: PolicyLevel;
  /** Written capabilities, then the shorthand's; without duplicates. */
  readonly capabilities: readonly HostVolumeCapability[];
}

/** A parsed policy document. Absent single blocks are `undefined`. */
export interface ParsedPolicy {
  readonly namespaces: readonly NamespaceRule[];
  readonly hostVolumes: readonly HostVolumeRule[];
  readonly agent?: PolicyLevel;
  readonly node?: PolicyLevel;
  /** Absent also when the block is written with an empty policy (the reference allows that for operator only). */
  readonly operator?: PolicyLevel;
  readonly quota?: PolicyLevel;
  readonly plugin?: PluginLevel;
}

/**
 * A policy document that cannot be used; the message is safe to show. Examples:
 * `Failed to parse ACL Policy: At 1:33: object expected closing RBRACE got: EOF`,
 * `Invalid namespace capability 'run-job': namespace "default" (line 2)`,
 * `Invalid or duplicate policy keys: nodes (line 1)`.
 */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';

  constructor(
    message: string,
    /** 1-based line of the problem, when known. */
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

const levelBlock = () => cfg.block({ policy: cfg.string() });

const SCHEMA = {
  namespace: cfg.labelled(
    {
      policy: cfg.string(),
      capabilities: cfg.list('string'),
      variables: cfg.block({ path: cfg.labelled({ capabilities: cfg.list('string') }, { repeated: true }) }),
    },
    { repeated: true },
  ),
  host_volume: cfg.labelled({ policy: cfg.string(), capabilities: cfg.list('string') }, { repeated: true }),
  agent: levelBlock(),
  node: levelBlock(),
  operator: levelBlock(),
  quota: levelBlock(),
  plugin: levelBlock(),
};

type Doc = BlockBody<typeof SCHEMA>;
type NamespaceBlock = Doc['namespace'][number];
type HostVolumeBlock = Doc['host_volume'][number];

/** The reference's `validNamespace` and `validVolume`. */
const VALID_NAME = /^[a-zA-Z0-9\-*]{1,128}$/;

/**
 * Parses a policy document (HCL v1, or JSON when it starts with `{`). The empty string
 * is a valid policy granting nothing (the reference's hot path); any other text must
 * contain at least one block.
 *
 * @throws {PolicyError} on a syntax error, an unknown or repeated key, a value of the
 *   wrong type, no block at all, a bad name, level or capability, or a bad variables
 *   block (messages: {@link PolicyError}), in the reference's validation order.
 */
export function parsePolicy(text: string): ParsedPolicy {
  if (text === '') return { namespaces: [], hostVolumes: [] };
  const doc = decode(text);
  const isEmpty =
    doc.namespace.length === 0 && doc.host_volume.length === 0 && [doc.agent, doc.node, doc.operator, doc.quota, doc.plugin].every((b) => b === undefined);
  if (isEmpty) throw new PolicyError(`Invalid policy: ${text}`, undefined);
  const namespaces = doc.namespace.map(namespaceRule);
  const hostVolumes = doc.host_volume.map(hostVolumeRule);
  return {
    namespaces,
    hostVolumes,
    ...single(doc, 'agent', POLICY_LEVELS, false),
    ...single(doc, 'node', POLICY_LEVELS, false),
    ...single(doc, 'operator', POLICY_LEVELS, true),
    ...single(doc, 'quota', POLICY_LEVELS, false),
    ...single(doc, 'plugin', PLUGIN_LEVELS, false),
  };
}

function namespaceRule({ label: name, body }: NamespaceBlock): NamespaceRule {
  const where = `namespace ${JSON.stringify(name)}`;
  if (!VALID_NAME.test(name)) throw invalid(`Invalid namespace name: ${JSON.stringify(name)}`, body.$at.line);
  const policy = optionalLevel(body.policy, `Invalid namespace policy: ${where}`, body.$at.keyLines.policy);
  const written = capabilities(
    body.capabilities ?? [],
    NAMESPACE_CAPABILITIES,
    (c) => `Invalid namespace capability '${c}': ${where}`,
    body.$at.keyLines.capabilities,
  );
  const withPolicy = [...written, ...(policy === undefined ? [] : expandNamespacePolicy(policy))];
  const rule = { name, ...(policy === undefined ? {} : { policy }), capabilities: unique([...withPolicy, ...impliedNamespaceCapabilities(withPolicy)]) };
  if (body.variables === undefined) return rule;
  const vars = body.variables;
  if (vars.path.length === 0) throw invalid(`Invalid variable policy: no variable paths in namespace ${name}`, vars.$at.line);
  const variables = vars.path.map(({ label: path, body: p }) => {
    if (path === '') throw invalid(`Invalid missing variable path in namespace ${name}`, p.$at.line);
    if (path.startsWith('/')) throw invalid(`Invalid variable path ${JSON.stringify(path)} in namespace ${name}: cannot start with a leading '/'`, p.$at.line);
    const caps = capabilities(
      p.capabilities ?? [],
      VARIABLE_CAPABILITIES,
      (c) => `Invalid variable capability '${c}' in namespace ${name}`,
      p.$at.keyLines.capabilities,
    );
    return { path, capabilities: expandVariableCapabilities(unique(caps)) };
  });
  return { ...rule, variables };
}

function hostVolumeRule({ label: name, body }: HostVolumeBlock): HostVolumeRule {
  const where = `host_volume ${JSON.stringify(name)}`;
  if (!VALID_NAME.test(name)) throw invalid(`Invalid host volume name: ${JSON.stringify(name)}`, body.$at.line);
  const policy = optionalLevel(body.policy, `Invalid host volume policy: ${where}`, body.$at.keyLines.policy);
  const written = capabilities(
    body.capabilities ?? [],
    HOST_VOLUME_CAPABILITIES,
    (c) => `Invalid host volume capability '${c}': ${where}`,
    body.$at.keyLines.capabilities,
  );
  const all = unique([...written, ...(policy === undefined ? [] : expandHostVolumePolicy(policy))]);
  return { name, ...(policy === undefined ? {} : { policy }), capabilities: all };
}

/**
 * `agent`, `node`, `operator`, `quota` or `plugin`: when the block is written its policy
 * must be a valid level, except that `operator` may leave it empty (the reference
 * checks operator's level only when set).
 */
function single<K extends 'agent' | 'node' | 'operator' | 'quota' | 'plugin', L extends string>(
  doc: Doc,
  key: K,
  levels: readonly L[],
  emptyAllowed: boolean,
): Partial<Record<K, L>> {
  const block = doc[key];
  if (block === undefined) return {};
  const written = block.policy ?? '';
  if (written === '' && emptyAllowed) return {};
  const level = levels.find((l) => l === written);
  if (level === undefined) {
    const why = written === '' ? 'no policy is set' : `${JSON.stringify(written)} is not ${spell(levels)}`;
    throw invalid(`Invalid ${key} policy: ${why}`, block.$at.keyLines.policy ?? block.$at.line);
  }
  return { [key]: level } as Partial<Record<K, L>>;
}

/** A namespace or host-volume shorthand: empty or absent means none (as the reference's `Policy != ""`). */
function optionalLevel(written: string | undefined, opening: string, line: number | undefined): PolicyLevel | undefined {
  if (written === undefined || written === '') return undefined;
  const level = POLICY_LEVELS.find((l) => l === written);
  if (level === undefined) throw invalid(`${opening}: ${JSON.stringify(written)} is not ${spell(POLICY_LEVELS)}`, line);
  return level;
}

function capabilities<C extends string>(written: readonly string[], allowed: readonly C[], message: (c: string) => string, line: number | undefined): C[] {
  return written.map((c) => {
    const known = allowed.find((a) => a === c);
    if (known === undefined) throw invalid(message(c), line);
    return known;
  });
}

/** Runs the kernel's HCL/JSON loader against {@link SCHEMA}, rewording its errors in the reference's terms. */
function decode(text: string): Doc {
  try {
    return parseConfig(text, 'policy', SCHEMA);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const first = err.issues[0];
    const syntax = syntaxErrorText(first);
    if (syntax) throw new PolicyError(`Failed to parse ACL Policy: ${syntax}`, first.line);
    // The reference reports unknown top-level keys together, strict mode's wording.
    const unknown = err.issues.filter((i) => i.message.startsWith('unknown key') || i.message.startsWith('only one '));
    if (unknown.length > 0) {
      const keys = unique(unknown.map((i) => i.key ?? '?'));
      throw invalid(`Invalid or duplicate policy keys: ${keys.join(', ')}`, unknown[0].line);
    }
    throw invalid(`Failed to parse ACL Policy: ${first.message}`, first.line);
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function spell(levels: readonly string[]): string {
  return `${levels.slice(0, -1).join(', ')} or ${levels[levels.length - 1]}`;
}

function invalid(message: string, line: number | undefined): PolicyError {
  return new PolicyError(line === undefined ? message : `${message} (line ${line})`, line);
}
