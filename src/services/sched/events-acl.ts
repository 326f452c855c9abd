/**
 * Who may subscribe to which event topics (spec 002 "Authentication", topic privileges
 * table; reference/sched.md §3.6). The broker runs the callback before a subscription
 * exists and again for live ones when token, policy or role events pass, so a deleted or
 * narrowed token loses its streams.
 *
 * @module
 */
import type { StateStore } from '../../kernel/store/index.js';
import { ALL_NAMESPACES, PERMISSION_DENIED, TOKEN_EXPIRED, type Authorizer, type NamespaceCapability } from './acl/index.js';
import type { Authorize, AuthorizeVerdict, TopicFilter } from './events/index.js';
import type { SchedAclResolver } from './resolve.js';
import { secretKey, T, type NamespaceDoc, type TokenDoc } from './state.js';

/**
 * Topics read with a namespace capability, checked in the request's namespace (spec 002:
 * Job, Allocation, Deployment, Evaluation, Service → `read-job`; reference §3.6 adds
 * CSIPlugin → `read-job`, CSIVolume → `csi-read-volume`, HostVolume → `host-volume-read`).
 */
const NAMESPACE_TOPIC_CAPABILITY: Readonly<Record<string, NamespaceCapability>> = {
  Job: 'read-job',
  Allocation: 'read-job',
  Deployment: 'read-job',
  Evaluation: 'read-job',
  Service: 'read-job',
  CSIPlugin: 'read-job',
  CSIVolume: 'csi-read-volume',
  HostVolume: 'host-volume-read',
};

const ALLOWED: AuthorizeVerdict = { allowed: true };
const DENIED: AuthorizeVerdict = { allowed: false, reason: PERMISSION_DENIED };

/**
 * May `authz` read `topic` in every one of `namespaces`? Namespace topics need their
 * capability in each; `Node` needs `node:read`; `Operator` `operator:read` (reference §3.6);
 * `*`, the ACL topics, `NodePool` and any other topic need a management token.
 */
function topicAllowed(authz: Authorizer, topic: string, namespaces: readonly string[]): boolean {
  const capability = NAMESPACE_TOPIC_CAPABILITY[topic];
  if (capability !== undefined) return namespaces.every((ns) => authz.allowNamespaceOperation(ns, capability));
  if (topic === 'Node') return authz.allowNodeRead();
  if (topic === 'Operator') return authz.allowOperatorRead();
  return authz.isManagement;
}

/**
 * Whether a client token's `authz` may read every topic of `topics` in `namespace`, or in
 * every existing namespace when it is `*` (the privilege of {@link topicAllowed} each).
 */
export function topicsAllowed(authz: Authorizer, state: StateStore, topics: TopicFilter, namespace: string): boolean {
  const namespaces = namespace === ALL_NAMESPACES ? state.list<NamespaceDoc>(T.namespaces).map((n) => n.Name) : [namespace];
  for (const topic of topics.keys()) if (!topicAllowed(authz, topic, namespaces)) return false;
  return true;
}

/**
 * The broker's authorisation callback. ACLs disabled: everything is allowed. Otherwise the
 * subscriber's secret is resolved afresh (`""` is the anonymous token): unknown → denied
 * (`Permission denied`), expired → denied (`ACL token expired`); a management token may read
 * everything; any other token needs, for every requested topic, the privilege of
 * {@link topicAllowed} in the request's namespace, or in every existing namespace when it
 * asks for `*` (a token allowed in one namespace only may not read all: the reference's
 * security fix hashicorp/nomad#25089). The verdict's reason ends the live streams it refuses.
 */
export function subscriptionAuthorizer(acl: SchedAclResolver, state: StateStore, aclEnabled: boolean): Authorize {
  return (request) => {
    if (!aclEnabled) return ALLOWED;
    const secret = request.token.secret === '' ? undefined : request.token.secret;
    const who = acl.tryResolve(secret);
    if (!who) {
      // The resolver refuses a stored secret only when its token has expired.
      const stored = secret !== undefined && state.getBy<TokenDoc>(T.tokens, 'secret', secretKey(secret)) !== undefined;
      return stored ? { allowed: false, reason: TOKEN_EXPIRED } : DENIED;
    }
    if (who.management) return ALLOWED;
    return topicsAllowed(who.authorizer, state, request.topics, request.namespace) ? ALLOWED : DENIED;
  };
}
