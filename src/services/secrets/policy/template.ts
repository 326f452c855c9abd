/**
 * Templated policy paths (the reference's ACL templating, reference/integration.md §4: the
 * policy that lets each workload read only its own secrets): a rule's path may hold
 * `{{identity.entity.aliases.<mount accessor>.metadata.<key>}}` or
 * `{{identity.entity.aliases.<mount accessor>.name}}`, filled in per token from the login
 * that made it (its auth mount's accessor, the alias name — the `user_claim` of a JWT login —
 * and the token's metadata — a JWT role's `claim_mappings`).
 *
 * Cairn has no identity entities: a token's one alias is its own login. A rule whose template
 * cannot be filled in for a token (another mount, a missing key) grants that token nothing,
 * as in the reference. Unlike the reference, a value that would change the path's shape (empty,
 * with `/`, a glob character `*` or `+`, `..`, or a NUL) also leaves the rule out: a claim
 * never widens what a policy grants. Parameters the reference has and Cairn cannot fill
 * (`identity.entity.id`, `.name`, `.metadata`, `identity.groups…`) are refused when the
 * policy is written, naming them.
 *
 * @module
 */

/** What a token's templates are filled in from: the alias of the login that made it. */
export interface TemplateIdentity {
  /** Accessor of the auth mount the token logged in at (`auth_jwt_1a2b3c4d`). */
  readonly mountAccessor: string;
  /** The alias name (a JWT login's `user_claim` value, a userpass user name). */
  readonly name: string;
  /** The token's metadata (a JWT login's mapped claims and `role`). */
  readonly metadata: Readonly<Record<string, string>>;
}

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const ALIAS = /^identity\.entity\.aliases\.([^.\s]+)\.(name|metadata\.([^\s]+))$/;

/** Whether a policy path holds a template. */
export function isTemplated(pattern: string): boolean {
  return pattern.includes('{{');
}

/**
 * Checks every template of `pattern`. @throws Error `unsupported template parameter "<p>":
 * Cairn fills in identity.entity.aliases.<mount accessor>.name and .metadata.<key>` or
 * `unclosed template "{{"` (the policy parser adds the path).
 */
export function checkTemplates(pattern: string): void {
  for (const m of pattern.matchAll(TEMPLATE)) {
    if (!ALIAS.test(m[1]!))
      throw new Error(`unsupported template parameter "${m[1]}": Cairn fills in identity.entity.aliases.<mount accessor>.name and .metadata.<key>`);
  }
  if (pattern.replace(TEMPLATE, '').includes('{{')) throw new Error('unclosed template "{{"');
}

/** A value that may stand for one path segment or part of one (see the module doc). */
function safeValue(v: string | undefined): v is string {
  return v !== undefined && v !== '' && v !== '.' && v !== '..' && !/[/*+\0]/.test(v);
}

/**
 * `pattern` with its templates filled in from `identity`, or undefined when one cannot be
 * (no identity, another mount's alias, a missing key, an unsafe value): the rule then grants
 * nothing. `pattern` must have passed {@link checkTemplates}.
 */
export function fillTemplates(pattern: string, identity: TemplateIdentity | undefined): string | undefined {
  if (!identity) return undefined;
  let missing = false;
  const out = pattern.replace(TEMPLATE, (_all, param: string) => {
    const m = ALIAS.exec(param)!;
    const value = m[1] !== identity.mountAccessor ? undefined : m[2] === 'name' ? identity.name : identity.metadata[m[3]!];
    if (!safeValue(value)) missing = true;
    return safeValue(value) ? value : '';
  });
  return missing ? undefined : out;
}

/** A stable key of `identity` for caches of per-token ACLs. */
export function identityKey(identity: TemplateIdentity): string {
  return JSON.stringify([identity.mountAccessor, identity.name, Object.entries(identity.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}
