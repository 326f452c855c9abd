/**
 * Who may call a scheduler endpoint (reference/sched.md §1.3), as data each route operation
 * declares ({@link SchedAccess}), and the check the kernel's dispatcher runs before the
 * handler ({@link authorizeSched}); also where an operation forwarded to the authoritative
 * region goes ({@link toAuthoritativeRegion}). Handlers get the checked caller as
 * `ctx.caller` and filter list results by it where the reference filters.
 *
 * The order of the checks is the reference's: the token resolves first (403 `Permission
 * denied` for an unknown or expired secret), then the object the rule names is looked up
 * where the rule names a stored object (its 404), then the capability (403).
 *
 * @module
 */
import type { ApiContext, ApiOperation, ApiRoute, HttpResponse } from '../../kernel/http/index.js';
import { Authorizer, type NamespaceCapability } from './acl/index.js';
import type { Ctx, SchedDeps } from './deps.js';
import { topicsAllowed } from './events-acl.js';
import type { TopicFilter } from './events/index.js';
import { aclDisabled, permissionDeniedError, schedInternal } from './http.js';
import { isNodeSecret, isOwnClientSecret } from './node-secret.js';
import type { Workload } from './keyring/workload-token.js';
import type { Identity } from './resolve.js';

/**
 * Who else may call an operation besides the tokens its rule admits: the client node the
 * request is about, by its `SecretID` (`node`: the stored node's; `client`: the client
 * agent beside this server, for its own allocations).
 */
type SecretHolder = { readonly node: string } | { readonly client: true };

/**
 * The access rule of a scheduler operation (or the kernel's `PUBLIC`). With ACLs disabled
 * every rule passes, except the `acl` ones, which answer 400 `ACL support disabled`.
 * - `acl`: an `/acl/*` endpoint: `management`, a management token, or a caller `orIf`
 *   admits (the holder of the policy, role or token read); `token`, any token that resolves
 *   (anonymous included), the handler showing what it holds; `enabled`, anyone, no token
 *   resolved (bootstrap, login, the request's own token);
 * - `caller: 'any'`: any token that resolves; the handler filters (lists over `*`);
 * - `management`: a management token (namespace writes);
 * - `namespace` + `anyOf`: one of the capabilities in the namespace (every one of a list);
 *   a function: the namespace of a stored object, looked up once the token resolved (it
 *   throws the object's 404); with `job`, a task's workload identity passes it for its own
 *   job (a `read-job` rule only); workload identities pass no other rule but `caller`;
 * - `namespaceVisible`: any capability in the namespace (reading it);
 * - `node` / `plugin`: the `node` / `plugin` policy (`list`: any plugin rule);
 * - `events`: every topic of an event stream in the namespace (`*`: in every namespace);
 * - `secretOf`: only the secret of that client node;
 * - `or`: the rule also passes for that client node's secret (checked first; its caller
 *   holds no ACL rights).
 */
export type SchedAccess =
  | { readonly acl: 'management' | 'token'; readonly orIf?: (who: Identity) => boolean }
  | { readonly acl: 'enabled' }
  | { readonly caller: 'any' }
  | { readonly management: true }
  | {
      readonly namespace: string | readonly string[] | (() => string);
      readonly anyOf: readonly NamespaceCapability[];
      readonly or?: SecretHolder;
      /** The job a read is about: a task's workload identity passes a `read-job` rule for its own job only. */
      readonly job?: string;
    }
  | { readonly namespaceVisible: string }
  | { readonly node: 'read' | 'write'; readonly or?: SecretHolder }
  | { readonly plugin: 'read' | 'list' }
  | { readonly events: { readonly topics: TopicFilter; readonly namespace: string } }
  | { readonly secretOf: SecretHolder };

/** One route of the scheduler service: its operations declare a {@link SchedAccess} each. */
export type SchedRoute = ApiRoute<SchedDeps, SchedAccess, Identity>;
/** One operation of a {@link SchedRoute}: its access rule, where it runs, its handler. */
export type SchedOperation = ApiOperation<SchedDeps, SchedAccess, Identity>;

/** An `/acl/*` operation for management tokens only. */
export const ACL_MANAGEMENT: SchedAccess = Object.freeze({ acl: 'management' });
/** An `/acl/*` operation for any token that resolves; the handler shows what the token holds. */
export const ACL_TOKEN: SchedAccess = Object.freeze({ acl: 'token' });
/** Any token that resolves (anonymous included); the handler filters what it shows. */
export const ANY_CALLER: SchedAccess = Object.freeze({ caller: 'any' });

/**
 * The caller of a request a client node made with its own secret, or of an `acl: 'enabled'`
 * operation, which resolves no token: it holds no ACL rights.
 */
const NO_TOKEN: Identity = {
  token: { AccessorID: '', SecretID: '', Name: '', Type: 'client', Policies: [], Roles: [], Global: false, Hash: '', CreateTime: '0001-01-01T00:00:00Z' },
  management: false,
  authorizer: new Authorizer([]),
};

function holdsSecret(ctx: Ctx, holder: SecretHolder): boolean {
  return 'node' in holder ? isNodeSecret(ctx, holder.node) : isOwnClientSecret(ctx);
}

/** The caller's identity; with ACLs disabled, a management identity (every check passes). @throws 403 for an unknown or expired secret. */
function identityOf(ctx: Ctx): Identity {
  return ctx.deps.config.acl.enabled ? ctx.deps.acl.resolve(ctx.secret) : ctx.deps.acl.resolveDisabled();
}

/**
 * What a task's workload identity may call (issue 27; reference/integration.md §4: an implicit
 * read-only policy): a `read-job` rule on its own job in its own namespace, and the rules any
 * resolving token passes (lists then filter it out: it holds no policy).
 */
function workloadAllowed(rule: SchedAccess, w: Workload): boolean {
  if ('caller' in rule) return true;
  if (!('anyOf' in rule) || rule.job !== w.jobId || !rule.anyOf.includes('read-job')) return false;
  const ns = typeof rule.namespace === 'function' ? rule.namespace() : rule.namespace;
  return ns === w.namespace;
}

/** Whether `who` passes `rule` (the `acl`, `secretOf` and `or` parts are checked by the caller). */
function allowed(rule: SchedAccess, who: Identity, ctx: Ctx): boolean {
  if (who.workload) return workloadAllowed(rule, who.workload);
  const authz = who.authorizer;
  if ('acl' in rule) return rule.acl === 'token' || who.management || ('orIf' in rule && rule.orIf !== undefined && rule.orIf(who));
  if ('caller' in rule) return true;
  if ('management' in rule) return who.management;
  if ('anyOf' in rule) {
    const ns = typeof rule.namespace === 'function' ? rule.namespace() : rule.namespace;
    return (typeof ns === 'string' ? [ns] : ns).every((n) => authz.allowNamespaceAnyOf(n, rule.anyOf));
  }
  if ('namespaceVisible' in rule) return authz.allowNamespace(rule.namespaceVisible);
  if ('node' in rule) return rule.node === 'read' ? authz.allowNodeRead() : authz.allowNodeWrite();
  if ('plugin' in rule) return rule.plugin === 'read' ? authz.allowPluginRead() : authz.allowPluginList();
  if ('events' in rule) return who.management || topicsAllowed(authz, ctx.deps.state, rule.events.topics, rule.events.namespace);
  return false;
}

/**
 * Throws 400 `ACL support disabled` when ACLs are off: the first check of every `/acl/*`
 * operation, made before a write is forwarded (reference/sched.md §1.2; the reference's RPCs
 * check it before forwarding), so also the first step of a `forward` function of one.
 */
export function requireAclSupport(ctx: Ctx): void {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
}

/**
 * The kernel's `authorize` convention for the scheduler: checks `rule` for the request and
 * returns its caller. @throws 400 `ACL support disabled` (an `acl` rule with ACLs off); 403
 * `Permission denied` (unknown or expired secret, missing capability, not the node's
 * secret); the 404 of the object a `namespace` function looks up.
 */
export function authorizeSched(rule: SchedAccess, context: ApiContext<unknown, Identity>): Identity {
  const ctx = context as Ctx;
  if ('acl' in rule) {
    requireAclSupport(ctx);
    if (rule.acl === 'enabled') return NO_TOKEN;
  }
  if ('secretOf' in rule) {
    if (!holdsSecret(ctx, rule.secretOf)) throw permissionDeniedError();
    return NO_TOKEN;
  }
  if ('or' in rule && rule.or && holdsSecret(ctx, rule.or)) return NO_TOKEN;
  const who = identityOf(ctx);
  if (!allowed(rule, who, ctx)) throw permissionDeniedError();
  return who;
}

/**
 * The kernel's `primary` convention for the scheduler: every operation that goes to the
 * authoritative region is an ACL write (reference/sched.md §2.3), so 400 `ACL support
 * disabled` comes first, before the request leaves (the reference's RPCs check it before
 * forwarding). Returns the authoritative region's reply, or undefined in that region.
 * @throws 400 `ACL support disabled`; 500 `No path to region` when no server of it is known.
 */
export function toAuthoritativeRegion(context: ApiContext<unknown, Identity>): Promise<HttpResponse> | undefined {
  const ctx = context as Ctx;
  requireAclSupport(ctx);
  const { region, authoritativeRegion } = ctx.deps.config;
  if (region === authoritativeRegion) return undefined;
  const forwarded = ctx.deps.forwardTo(authoritativeRegion, ctx.req, ctx.secret);
  if (!forwarded) throw schedInternal('No path to region');
  return forwarded;
}
