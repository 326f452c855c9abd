/**
 * Well-known ACL objects of the scheduler (the reference's `nomad/structs/acl.go`
 * constants and `AnonymousACLToken`; reference/sched.md §1.3).
 *
 * A request without a token (empty `X-Sched-Token`, no bearer) runs as the anonymous
 * token. It has no SecretID of its own and holds the policy named `anonymous`: an
 * operator grants anonymous access by creating a policy with that name.
 *
 * @module
 */

/** A token's `Type` for tokens whose access comes from their policies and roles. */
export const CLIENT_TOKEN_TYPE = 'client';
/** A token's `Type` for tokens that pass every check (authorizer.ts `Authorizer.management`). */
export const MANAGEMENT_TOKEN_TYPE = 'management';
/** The two token types, as the reference validates them on create. */
export const TOKEN_TYPES = [CLIENT_TOKEN_TYPE, MANAGEMENT_TOKEN_TYPE] as const;

/** The anonymous token's AccessorID, literally. */
const ANONYMOUS_TOKEN_ACCESSOR_ID = 'anonymous';
/** The anonymous token's SecretID: none; the empty token resolves to the anonymous token. */
const ANONYMOUS_TOKEN_SECRET_ID = '';
/** The anonymous token's Name. */
const ANONYMOUS_TOKEN_NAME = 'Anonymous Token';
/** The one policy the anonymous token holds; it grants nothing until an operator creates it. */
export const ANONYMOUS_POLICY_NAME = 'anonymous';

/** The anonymous token as the reference describes it: a non-global client token holding {@link ANONYMOUS_POLICY_NAME}. */
export const ANONYMOUS_TOKEN = Object.freeze({
  AccessorID: ANONYMOUS_TOKEN_ACCESSOR_ID,
  SecretID: ANONYMOUS_TOKEN_SECRET_ID,
  Name: ANONYMOUS_TOKEN_NAME,
  Type: CLIENT_TOKEN_TYPE,
  Policies: Object.freeze([ANONYMOUS_POLICY_NAME]),
  Global: false,
} as const);

/** The Name of the management token that `acl bootstrap` creates. */
export const BOOTSTRAP_TOKEN_NAME = 'Bootstrap Token';
