/**
 * Auth tokens as resources (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-tokens):
 * `GET /v1/auth-tokens?scope_id=…[&recursive=true]`, `GET /v1/auth-tokens/<id>`,
 * `DELETE /v1/auth-tokens/<id>` (logging out). Their user may read and delete them
 * through `read:self` / `delete:self` grants. An ended token (expired or idle too long) is
 * shown nowhere; the expiry reaper deletes it (server.ts).
 *
 * @module
 */
import type { CollectionSpec } from './collection.js';
import { T, type AuthTokenDoc } from './docs.js';
import type { Caller, GatewayDomain } from './domain.js';
import { inScope } from './principals.js';
import { view, type Kind } from './resource.js';
import { tokenEndMs } from './tokens.js';

/** Auth tokens: in their auth method's scope, owned by their user (`read:self`, `delete:self`). */
const authTokenKind: Kind<AuthTokenDoc & { version: number }> = {
  type: 'auth-token',
  table: T.authTokens,
  idActions: ['no-op', 'read', 'read:self', 'delete', 'delete:self'],
  where: (_d, t) => ({ scopeId: t.scope_id }),
  ownerOf: (t) => t.user_id,
};

/** The API view of a token (never its hash; the token string only at `:authenticate`). */
export function authTokenView(d: GatewayDomain, caller: Caller, doc: AuthTokenDoc): Record<string, unknown> {
  return view(d, caller, { kind: authTokenKind, doc: doc as AuthTokenDoc & { version: number } });
}

/** The `auth-tokens` collection: its routes are declared in routes.ts. */
export const authTokenCollection: CollectionSpec<AuthTokenDoc & { version: number }> = {
  path: 'auth-tokens',
  kind: authTokenKind,
  parentField: 'scope_id',
  recursive: true,
  only: ['list', 'read', 'delete'],
  collection: (d, id) => inScope(d, 'auth-token', id),
  inParent: (doc, id) => doc.scope_id === id,
  visible: (d, doc) => tokenEndMs(doc, d.tokenStaleSeconds) > d.now(),
  create: () => Promise.reject(new Error('auth tokens are made by :authenticate')),
  newId: () => '',
};
