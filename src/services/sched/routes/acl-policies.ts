/**
 * ACL policy endpoints of the scheduler (the reference's `command/agent/acl_endpoint.go`
 * `ACLPoliciesRequest`, `ACLPolicySpecificRequest`; `nomad/acl_endpoint.go` `ListPolicies`,
 * `GetPolicy`, `UpsertPolicies`, `DeletePolicies`; `nomad/structs/structs.go`
 * `ACLPolicy.Validate`):
 *
 * ```text
 * GET          /v1/acl/policies        stubs {Name, Description, Hash, CreateIndex, ModifyIndex};
 *                                      a client token sees only the policies it holds; ?prefix= on Name
 * GET          /v1/acl/policy/:name    management, a holder, or anyone for `anonymous`; 404 `ACL policy not found`
 * POST|PUT     /v1/acl/policy/:name    management; body {Name, Description, Rules, JobACL}; empty reply
 * DELETE       /v1/acl/policy/:name    management; empty reply (a missing policy is no error)
 * ```
 *
 * `Rules` is checked with the scheduler's policy parser (acl/rules.ts). Writes go to the
 * authoritative region (reference/sched.md §2.3).
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { ANONYMOUS_POLICY_NAME, parsePolicy, PolicyError, type ParsedPolicy } from '../acl/index.js';
import { ACL_MANAGEMENT, ACL_TOKEN, type SchedRoute } from '../access.js';
import { aclDelete, invalidObject } from '../acl-write.js';
import { contentHash } from '../auth/stamp.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { PREFIX_QUERY, queryPrefix, requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { withBody } from '../../../kernel/http/index.js';
import type { Identity } from '../resolve.js';
import { T, type PolicyDoc, type RoleDoc } from '../state.js';

/** Policy names (the reference's `ValidPolicyName`). */
const POLICY_NAME = /^[a-zA-Z0-9-]{1,128}$/;
/** Longest policy description in bytes (the reference's `maxPolicyDescriptionLength`). */
const MAX_POLICY_DESCRIPTION_BYTES = 256;
/** 404 text of a missing policy (reference `command/agent/acl_endpoint.go`). */
const POLICY_NOT_FOUND = 'ACL policy not found';

/** A policy's optional attachment to a job, group or task (the reference's `JobACL`). */
interface JobAcl {
  readonly Namespace: string;
  readonly JobID: string;
  readonly Group: string;
  readonly Task: string;
}

/** The body of a policy write (the reference's `structs.ACLPolicy`; `JobACL` null when absent). */
const PolicyBody = Go.struct(
  'ACLPolicy',
  {
    Name: Go.string(),
    Description: Go.string(),
    Rules: Go.string('the policy in HCL'),
    JobACL: Go.struct('JobACL', { Namespace: Go.string(), JobID: Go.string(), Group: Go.string(), Task: Go.string() }),
  },
  { typePrefix: 'structs.' },
);

/**
 * The policy names a client token holds: its own (whether they exist or not) and those of
 * its roles that exist (the reference's `policyNamesFromRoleLinks` plus `token.Policies`).
 */
function heldPolicies(state: StateStore, who: Identity): Set<string> {
  const names = new Set(who.token.Policies);
  for (const link of who.token.Roles) {
    for (const p of state.get<RoleDoc>(T.roles, link.ID)?.Policies ?? []) if (state.get(T.policies, p.Name)) names.add(p.Name);
  }
  return names;
}

/**
 * The reference's `RulesJSON`: the parsed policy in its Go struct shape (`acl.Policy`:
 * `Namespaces`, `NodePools`, `HostVolumes`, `Agent`, `Node`, `Operator`, `Quota`, `Plugin`,
 * `Raw`), capabilities expanded. Null when the rules do not parse.
 */
function rulesJson(rules: string): Record<string, unknown> | null {
  let p: ParsedPolicy;
  try {
    p = parsePolicy(rules);
  } catch {
    return null;
  }
  const level = (policy: string | undefined) => (policy === undefined ? null : { Policy: policy });
  const list = <X>(items: readonly X[]) => (items.length > 0 ? items : null);
  return {
    Namespaces: list(
      p.namespaces.map((n) => ({
        Name: n.name,
        Policy: n.policy ?? '',
        Capabilities: n.capabilities,
        Variables: n.variables ? { Paths: n.variables.map((v) => ({ PathSpec: v.path, Capabilities: v.capabilities })) } : null,
      })),
    ),
    NodePools: null,
    HostVolumes: list(p.hostVolumes.map((h) => ({ Name: h.name, Policy: h.policy ?? '', Capabilities: h.capabilities }))),
    Agent: level(p.agent),
    Node: level(p.node),
    Operator: level(p.operator),
    Quota: level(p.quota),
    Plugin: level(p.plugin),
    Raw: rules,
  };
}

/** A policy as `GET /v1/acl/policy/:name` shows it (the reference's `ACLPolicy`). */
function renderPolicy(p: PolicyDoc & Indexed): Record<string, unknown> {
  return {
    Name: p.Name,
    Description: p.Description,
    Rules: p.Rules,
    RulesJSON: rulesJson(p.Rules),
    JobACL: p.JobACL ?? null,
    Hash: p.Hash,
    CreateIndex: p.CreateIndex,
    ModifyIndex: p.ModifyIndex,
  };
}

/** The list item of `GET /v1/acl/policies` (the reference's `ACLPolicyListStub`). */
function policyStub(p: PolicyDoc & Indexed): Record<string, unknown> {
  return { Name: p.Name, Description: p.Description, Hash: p.Hash, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex };
}

/** The reference's `ACLPolicy.Validate` messages, in its order. */
function policyErrors(name: string, description: string, rules: string, job: JobAcl | null): string[] {
  const errors: string[] = [];
  if (!POLICY_NAME.test(name)) errors.push(`invalid name '${name}'`);
  try {
    parsePolicy(rules);
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    errors.push(`failed to parse rules: ${err.message}`);
  }
  if (Buffer.byteLength(description) > MAX_POLICY_DESCRIPTION_BYTES) errors.push(`description longer than ${MAX_POLICY_DESCRIPTION_BYTES}`);
  if (job) {
    if (job.JobID !== '' && job.Namespace === '') errors.push('namespace must be set to set job ID');
    if (job.Group !== '' && job.JobID === '') errors.push('job ID must be set to set group');
    if (job.Task !== '' && job.Group === '') errors.push('group must be set to set task');
  }
  return errors;
}

/**
 * Creates or replaces policy `:name`. @throws 400 `ACL policy name does not match request
 * path`; 400 `policy 0 invalid: <multierror>` with `invalid name '<n>'`, `failed to parse
 * rules: <parser text>`, `description longer than 256`, JobACL chain errors.
 */
async function upsert(ctx: Ctx, input: Static<typeof PolicyBody> | undefined): Promise<SchedReply> {
  const d = requireInput(input);
  const [name, description, rules] = [d.Name, d.Description, d.Rules];
  // Null when absent (Go's zero value), though the declared type cannot say so.
  const job = d.JobACL as JobAcl | null;
  if (name !== ctx.params.name) throw schedBadRequest('ACL policy name does not match request path');
  const errors = policyErrors(name, description, rules, job);
  if (errors.length > 0) throw invalidObject('policy', errors);
  const doc: PolicyDoc = {
    Name: name,
    Description: description,
    Rules: rules,
    ...(job ? { JobACL: job } : {}),
    Hash: contentHash([name, description, rules, job ? [job.Namespace, job.JobID, job.Group, job.Task] : null]),
  };
  const { index } = await ctx.deps.state.txn((tx) => tx.put(T.policies, name, doc));
  return writeReply(index);
}

/** Routes of this file (module doc). */
export const aclPolicyRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/policies',
    synopsis: 'List ACL policies (stubs); a client token sees the policies it holds',
    blocking: [T.policies],
    methods: {
      GET: {
        access: ACL_TOKEN,
        query: PREFIX_QUERY,
        handle: async (ctx) => {
          const who = ctx.caller;
          const held = who.management ? undefined : heldPolicies(ctx.deps.state, who);
          const prefix = queryPrefix(ctx);
          const items = ctx.deps.state.list<PolicyDoc>(T.policies).filter((p) => p.Name.startsWith(prefix) && (!held || held.has(p.Name)));
          return { body: items.map(policyStub), index: ctx.deps.state.tableIndex(T.policies) };
        },
      },
    },
  },
  {
    pattern: 'acl/policy/:name',
    synopsis: 'Read, create or update, or delete an ACL policy',
    blocking: [T.policies],
    methods: {
      GET: {
        // Management, or anyone for `anonymous`, or a token holding the policy.
        access: (ctx) => ({
          acl: 'management',
          orIf: (who) => ctx.params.name === ANONYMOUS_POLICY_NAME || heldPolicies(ctx.deps.state, who).has(ctx.params.name!),
        }),
        handle: async (ctx) => {
          const p = ctx.deps.state.get<PolicyDoc>(T.policies, ctx.params.name!);
          if (!p) throw schedNotFound(POLICY_NOT_FOUND);
          return { body: renderPolicy(p), index: p.ModifyIndex };
        },
      },
      POST: withBody(PolicyBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: upsert }),
      PUT: withBody(PolicyBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: upsert }),
      // A missing policy is no error, as in the reference.
      DELETE: { access: ACL_MANAGEMENT, forward: 'primary', handle: (ctx) => aclDelete(ctx, { table: T.policies, key: ctx.params.name! }) },
    },
  },
];
