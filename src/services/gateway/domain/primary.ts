/**
 * A scope's primary auth method (reference: scopes' `primary_auth_method_id`,
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/scopes): logins
 * through it make a user for an account that has none. Set by updating the scope
 * (`primary_auth_method_id`); a scope that never had one set keeps the bootstrap's
 * `is_primary` flag on its auth method.
 *
 * @module
 */
import { T, type AuthMethodDoc, type ScopeDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import type { Input } from './input.js';

/** Whether `am` is its scope's primary auth method. */
export function isPrimary(d: GatewayDomain, am: AuthMethodDoc): boolean {
  const scope = d.scope(am.scope_id!) as (ScopeDoc & { primary_auth_method_id?: string }) | undefined;
  if (scope && Object.hasOwn(scope, 'primary_auth_method_id')) return scope.primary_auth_method_id === am.id;
  return am.is_primary;
}

/**
 * The `primary_auth_method_id` of a scope update: an auth method of that scope, or `""` /
 * `null` for none; undefined when absent. Problems go to `input`.
 */
export function primaryAuthMethodUpdate(d: GatewayDomain, input: Input, scope: ScopeDoc): { primary_auth_method_id: string } | undefined {
  const v = input.string('primary_auth_method_id');
  if (v === undefined) return undefined;
  if (v === null || v === '') return { primary_auth_method_id: '' };
  const am = d.state.get<AuthMethodDoc>(T.authMethods, v);
  if (!am || am.scope_id !== scope.id) input.fail('primary_auth_method_id', 'Must be an auth method in this scope.');
  return { primary_auth_method_id: v };
}
