/**
 * Binding rules → what a login token gets (reference/mesh.md §3.4, reference/sched.md §2.4).
 * Rules whose selector matches the identity's selectable fields are kept, in order; each
 * one's bind name is interpolated with the projected vars and checked for its bind type.
 * Which bind types exist and what a valid name is differ between the discovery service
 * (`service`, `node`, `role`, `policy`) and the scheduler (`role`, `policy`,
 * `management`), so both come in a {@link BindProfile}.
 *
 * Selectors are go-bexpr expressions evaluated by the kernel filter language
 * ({@link bexprMatcher}); another {@link SelectorMatcher} may be injected.
 *
 * @module
 */
import { compileFilter } from '../bexpr/index.js';
import type { Identity } from './claims.js';
import { AuthnError } from './errors.js';
import { interpolateBindName } from './interpolate.js';

/** Every bind type either service knows. */
type BindType = 'service' | 'node' | 'role' | 'policy' | 'management';

/** One binding rule, as stored by a service. An empty `selector` matches every identity. */
export interface BindingRule {
  readonly selector?: string;
  readonly bindType: string;
  readonly bindName: string;
}

/**
 * The bind types a service accepts, each with the check a computed name must pass
 * (`management` ignores its name).
 */
export interface BindProfile {
  readonly bindTypes: Readonly<Partial<Record<BindType, (name: string) => boolean>>>;
}

const identityName = (n: string) => n.length <= 256 && /^[a-z0-9]([a-z0-9\-_]*[a-z0-9])?$/.test(n);

/** Discovery service: service/node identity names, role names ≤ 256, policy names ≤ 128 (reference/mesh.md §3.4). */
export const MESH_BIND_PROFILE: BindProfile = {
  bindTypes: {
    service: identityName,
    node: identityName,
    role: (n) => /^[A-Za-z0-9\-_]{1,256}$/.test(n),
    policy: (n) => /^[A-Za-z0-9\-_]{1,128}$/.test(n),
  },
};

/** Scheduler: roles and policies by existing name, and `management` (reference/sched.md §2.4). */
export const SCHED_BIND_PROFILE: BindProfile = {
  bindTypes: { role: (n) => n !== '', policy: (n) => n !== '', management: () => true },
};

/**
 * Whether `selector` matches `selectable`. It may throw (an invalid selector or an
 * evaluation error): the binder treats that as no match, like the reference.
 */
export type SelectorMatcher = (selector: string, selectable: Record<string, unknown>) => boolean;

/** The default {@link SelectorMatcher}: the kernel filter language (go-bexpr), compiled per call. */
const bexprMatcher: SelectorMatcher = (selector, selectable) => compileFilter(selector).matches(selectable);

/** A role or policy a bind name resolved to. */
interface NamedLink {
  readonly id: string;
  readonly name: string;
}

/** Options of {@link bindIdentity}. */
export interface BindOptions {
  readonly profile: BindProfile;
  /** Selector evaluation; absent means {@link bexprMatcher}. */
  readonly matches?: SelectorMatcher;
  /** Role by exact name; absent or `undefined` result = the rule is silently ignored. */
  readonly roleByName?: (name: string) => NamedLink | undefined | Promise<NamedLink | undefined>;
  /** Policy by exact name; absent or `undefined` result = the rule is silently ignored. */
  readonly policyByName?: (name: string) => NamedLink | undefined | Promise<NamedLink | undefined>;
  /** Datacenter recorded in node identities (the local one). */
  readonly datacenter?: string;
}

/** What the matching rules grant. {@link grantsNothing} tells a login to refuse. */
export interface Bindings {
  readonly serviceIdentities: { serviceName: string }[];
  readonly nodeIdentities: { nodeName: string; datacenter: string }[];
  readonly roles: NamedLink[];
  readonly policies: NamedLink[];
  readonly management: boolean;
}

/**
 * Evaluates `rules` for `identity` (reference/mesh.md §3.4, reference/sched.md §2.4):
 * matching rules in list order; names interpolated ({@link interpolateBindName}, values
 * lower-cased) and checked per type; roles and policies looked up by name, missing ones
 * ignored; duplicates collapsed.
 *
 * @throws {AuthnError} kind `bind`: `error interpreting template: …`,
 *   `invalid bind name: "<v>"`, or `unknown BindType "<t>"` for a type the profile lacks.
 */
export async function bindIdentity(rules: readonly BindingRule[], identity: Identity, options: BindOptions): Promise<Bindings> {
  const out = { serviceIdentities: [], nodeIdentities: [], roles: [], policies: [], management: false } as {
    -readonly [K in keyof Bindings]: Bindings[K];
  };
  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && !!seen.add(key);
  for (const rule of rules) {
    if (!selects(rule.selector, identity, options.matches ?? bexprMatcher)) continue;
    const type = rule.bindType as BindType;
    if (type === 'management' && options.profile.bindTypes.management) {
      out.management = true;
      continue;
    }
    const name = computeBindName(rule, identity.projected, options.profile);
    switch (type) {
      case 'service':
        if (once(`s:${name}`)) out.serviceIdentities.push({ serviceName: name });
        break;
      case 'node':
        if (once(`n:${name}`)) out.nodeIdentities.push({ nodeName: name, datacenter: options.datacenter ?? '' });
        break;
      case 'role': {
        const role = await options.roleByName?.(name);
        if (role && once(`r:${role.id}`)) out.roles.push(role);
        break;
      }
      case 'policy': {
        const policy = await options.policyByName?.(name);
        if (policy && once(`p:${policy.id}`)) out.policies.push(policy);
        break;
      }
      case 'management':
        break; // unreachable: computeBindName refused it when the profile lacks it
      default: {
        const never: never = type;
        throw new AuthnError('bind', `unknown BindType "${String(never)}"`);
      }
    }
  }
  return out;
}

/** True when `b` grants nothing, the reference's login `Permission denied` / `no role or policy bindings matched`. */
export function grantsNothing(b: Bindings): boolean {
  return !b.management && !b.serviceIdentities.length && !b.nodeIdentities.length && !b.roles.length && !b.policies.length;
}

/**
 * Write-time check of a rule's bind type and name (reference/mesh.md §6.6): the name is
 * interpolated with every one of `projectedVarNames` set to `"fake"` and must then be
 * valid for its type.
 *
 * @throws {AuthnError} kind `bind`, as {@link bindIdentity}.
 */
export function checkBindingRule(rule: BindingRule, projectedVarNames: readonly string[], profile: BindProfile): void {
  if ((rule.bindType as BindType) === 'management' && profile.bindTypes.management) return;
  computeBindName(rule, Object.fromEntries(projectedVarNames.map((n) => [n, 'fake'])), profile);
}

function selects(selector: string | undefined, identity: Identity, matches: SelectorMatcher): boolean {
  if (!selector) return true;
  try {
    return matches(selector, identity.selectable);
  } catch {
    return false; // an invalid selector or an evaluation error is no match (reference/mesh.md §3.4)
  }
}

function computeBindName(rule: BindingRule, vars: Readonly<Record<string, string>>, profile: BindProfile): string {
  const valid = Object.hasOwn(profile.bindTypes, rule.bindType) ? profile.bindTypes[rule.bindType as BindType] : undefined;
  if (!valid) throw new AuthnError('bind', `unknown BindType "${rule.bindType}"`);
  const name = interpolateBindName(rule.bindName, vars);
  if (!valid(name)) throw new AuthnError('bind', `invalid bind name: "${name}"`);
  return name;
}
