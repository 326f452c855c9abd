/**
 * What login and the OIDC callback share once an identity is proven (reference/mesh.md
 * §3.2 steps 6–9, §3.4, §5.2): the auth method's binding rules → bindings
 * (`MESH_BIND_PROFILE`, roles and policies looked up by name), nothing granted → 403
 * `Permission denied`, then a token with `AuthMethod`, `Local` per the method's
 * `TokenLocality` and an expiry of `MaxTokenTTL`, all in the auth method's namespace.
 *
 * @module
 */
import { AuthnError, bindIdentity, grantsNothing, MESH_BIND_PROFILE, type Identity } from '../../kernel/authn/index.js';
import { CairnError } from '../../kernel/http/index.js';
import type { Indexed } from '../../kernel/store/index.js';
import type { AuthMethodDoc, BindingRuleDoc } from './auth-docs.js';
import type { MeshDeps } from './deps.js';
import { meshForbidden } from './http.js';
import { nameKey, nsOf, T, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';
import { createToken } from './token-write.js';

/**
 * The token's description: `prefix`, or `prefix: {"k":"v"}` with `meta`'s keys sorted and
 * Go's JSON escaping of `<`, `>`, `&` (reference/mesh.md §3.2 step 6).
 */
function loginDescription(prefix: string, meta: Readonly<Record<string, string>>): string {
  const keys = Object.keys(meta).sort();
  if (keys.length === 0) return prefix;
  const json = JSON.stringify(Object.fromEntries(keys.map((k) => [k, meta[k]])));
  return `${prefix}: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')}`;
}

/** How a login token is described: {@link loginDescription}(`prefix`, `meta`). */
export interface LoginLabel {
  /** e.g. `token created via login`. */
  readonly prefix: string;
  /** The login request's `Meta`, shown after the prefix as JSON when not empty. */
  readonly meta: Readonly<Record<string, string>>;
}

/**
 * Binds `identity` with `method`'s rules and creates its token, described by `label`.
 * @throws 403 `Permission denied` when the rules grant nothing (also when a bound role or
 *   policy was deleted meanwhile); 500 with the binder's text when a rule computes an
 *   invalid name (the rule is at fault, as in the reference).
 */
export async function createLoginToken(deps: MeshDeps, method: AuthMethodDoc, identity: Identity, { prefix, meta }: LoginLabel): Promise<TokenDoc & Indexed> {
  const { state } = deps;
  // Everything happens in the method's namespace: its rules, the roles and policies they bind, the token.
  const ns = nsOf(method);
  const rules = state
    .list<BindingRuleDoc>(T.bindingRules)
    .filter((r) => r.AuthMethod === method.Name && nsOf(r) === ns)
    .map((r) => ({ selector: r.Selector, bindType: r.BindType, bindName: r.BindName }));
  const named = (table: string) => (name: string) => {
    const doc = state.getBy<PolicyDoc | RoleDoc>(table, 'name', nameKey(ns, name));
    return doc && { id: doc.ID, name: doc.Name };
  };
  let bindings;
  try {
    bindings = await bindIdentity(rules, identity, {
      profile: MESH_BIND_PROFILE,
      roleByName: named(T.roles),
      policyByName: named(T.policies),
      datacenter: deps.config.datacenter,
    });
  } catch (err) {
    if (err instanceof AuthnError) throw new CairnError('internal', err.message);
    throw err;
  }
  if (grantsNothing(bindings)) throw meshForbidden('Permission denied');
  const ttlMs = method.MaxTokenTTL > 0 ? method.MaxTokenTTL / 1e6 : undefined;
  const { result } = await state.txn((tx) => {
    // Roles and policies were looked up outside the transaction: keep those still there.
    const roles = bindings.roles.filter((r) => tx.get(T.roles, r.id)).map((r) => ({ ID: r.id }));
    const policies = bindings.policies.filter((p) => tx.get(T.policies, p.id)).map((p) => ({ ID: p.id }));
    if (!roles.length && !policies.length && !bindings.serviceIdentities.length && !bindings.nodeIdentities.length) {
      throw meshForbidden('Permission denied');
    }
    return createToken(
      tx,
      {
        Description: loginDescription(prefix, meta),
        Policies: policies,
        Roles: roles,
        ServiceIdentities: bindings.serviceIdentities.map((s) => ({ ServiceName: s.serviceName })),
        NodeIdentities: bindings.nodeIdentities.map((n) => ({ NodeName: n.nodeName, Datacenter: n.datacenter })),
        Local: method.TokenLocality !== 'global',
      },
      { nowMs: deps.now(), authMethod: method.Name, ttlMs, namespace: ns },
    );
  });
  return result;
}
