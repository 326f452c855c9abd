/**
 * The event stream's source: a committed state batch (the store's change feed) → the events
 * it produces (reference/sched.md §3.4, spec 002 "Events"). Per state table (state.ts `T`):
 *
 * ```text
 * table              Topic           Key         FilterKeys            Namespace  Payload
 * nodes              Node            node ID     null                  ""         {"Node": node without SecretID, with Drain}
 * allocs             Allocation      alloc ID    [JobID, DeploymentID] its own    {"Allocation": alloc, Job null}
 * acl-tokens         ACLToken        AccessorID  null                  ""         {"ACLToken": token, SecretID ""}
 * acl-policies       ACLPolicy       name        null                  ""         {"ACLPolicy": policy}
 * acl-roles          ACLRole         role ID     [role Name]           ""         {"ACLRole": role}
 * acl-auth-methods   ACLAuthMethod   name        null                  ""         {"AuthMethod": method, secrets redacted}
 * acl-binding-rules  ACLBindingRule  rule ID     [AuthMethod]          ""         {"ACLBindingRule": rule}
 * csi-volumes        CSIVolume       volume ID   [ID, Name, PluginID]  its own    {"Volume": volume as read, no secrets}
 * csi-plugins        CSIPlugin       plugin ID   [ID]                  ""         {"Plugin": plugin as read}
 * jobs               Job             job ID      null                  its own    {"Job": job}; a delete adds "Deleted": true
 * evals              Evaluation      eval ID     [JobID, DeploymentID] its own    {"Evaluation": evaluation as read}
 * deployments        Deployment      deploy ID   [JobID]               its own    {"Deployment": deployment}
 * acl-meta, namespaces: no events
 * ```
 *
 * Types: the write's label (state.ts `LABEL`, the reference's raft message types) types every
 * node and allocation change of the batch, as the reference types every row of one apply;
 * without a node or allocation label they default to `NodeRegistration` /
 * `NodeDeregistration` and `AllocationCreated` / `AllocationUpdated` (a plan's write, label
 * `PlanResult`, types its allocations `PlanResult`, as the reference; an unlabelled
 * allocation delete makes no event, like the reference's garbage collection). ACL objects are
 * always typed by table and operation: `<Topic>Upserted` / `<Topic>Deleted` (batches
 * replication copies in, label `Replication`, included). CSI volumes take the batch's CSI label
 * (`CSIVolumeRegistered`, `CSIVolumeDeregistered`, `CSIVolumeClaim`); otherwise a change of a
 * volume is a claim (allocation writes claim and release) and a delete a deregistration. CSI
 * Jobs and evaluations take the batch's label, as the reference types them by the apply that
 * wrote them (an evaluation written with a job register is `JobRegistered`, with a plan
 * `PlanResult`); an unlabelled job change is `JobRegistered` / `JobDeregistered`, an
 * unlabelled evaluation change `EvaluationUpdated`. Deployments take a deployment label
 * (`DeploymentStatusUpdate`, `DeploymentPromotion`, `DeploymentAllocHealth`) or `PlanResult`;
 * under any other label their change is a `DeploymentStatusUpdate`. CSI
 * plugins are typed like nodes (the plugin registry labels its writes `NodeRegistration`, as
 * the reference's clients report plugins in their node registration). Volume payloads show the
 * plugin health and allocations `read` finds when the batch is published (reference/sched.md
 * §4.8: the same sanitized shape as a read). Deletes carry the object as it was before; every
 * event's `Index` is the batch's.
 *
 * @module
 */
import type { ChangeBatch, Indexed, StateChange } from '../../../kernel/store/index.js';
import { renderAuthMethod } from '../auth/auth-method.js';
import { renderAlloc, type StoredAlloc } from '../alloc.js';
import { volumeLookup, type DocReader } from '../csi/lookup.js';
import { renderPlugin, type CsiPluginDoc } from '../csi/plugin-doc.js';
import { renderVolume, type StoredVolume } from '../csi/volume.js';
import { renderEval, renderJob, type StoredJob } from '../jobs/render.js';
import type { Evaluation } from '../jobs/types.js';
import type { StoredDeployment } from '../deployments/doc.js';
import { renderNode, type StoredNode } from '../node.js';
import { LABEL, T, type AuthMethodDoc, type BindingRuleDoc, type PolicyDoc, type RoleDoc, type TokenDoc } from '../state.js';
import { renderToken } from '../token.js';
import type { EventBatch, StreamEvent } from './event.js';

type Doc = Readonly<Indexed & Record<string, unknown>>;

/** What a table's change becomes, before `Type` and `Index` are set. */
type Described = Omit<StreamEvent, 'Type' | 'Index'>;

const NODE_LABELS = new Set<string>([LABEL.nodeRegister, LABEL.nodeDeregister, LABEL.nodeEligibility, LABEL.nodeDrain, LABEL.nodeEvent]);
const ALLOC_LABELS = new Set<string>([LABEL.allocCreate, LABEL.allocUpdate, LABEL.allocDesired, LABEL.planResult]);
const DEPLOYMENT_LABELS = new Set<string>([LABEL.deploymentStatus, LABEL.deploymentPromotion, LABEL.deploymentAllocHealth, LABEL.planResult]);
const VOLUME_LABELS = new Set<string>([LABEL.csiVolumeRegister, LABEL.csiVolumeDeregister, LABEL.csiVolumeClaim]);

/** A reader that finds nothing (no state given to {@link eventBatchOf}). */
const NOTHING: DocReader = { get: () => undefined };

/** Topic, key, filter keys, namespace and payload of a document of each event-producing table; `read` finds related documents. */
const DESCRIBE: Readonly<Record<string, (doc: Doc, read: DocReader) => Described>> = {
  [T.csiVolumes]: (d, read) => {
    const v = d as unknown as StoredVolume;
    return {
      Topic: 'CSIVolume',
      Key: v.ID,
      FilterKeys: [v.ID, v.Name, v.PluginID],
      Namespace: v.Namespace,
      Payload: { Volume: renderVolume(v, volumeLookup(read)) },
    };
  },
  [T.csiPlugins]: (d) => {
    const p = d as unknown as CsiPluginDoc & Indexed;
    return { Topic: 'CSIPlugin', Key: p.ID, FilterKeys: [p.ID], Namespace: '', Payload: { Plugin: renderPlugin(p) } };
  },
  [T.nodes]: (d) => {
    const n = d as unknown as StoredNode & Indexed;
    return { Topic: 'Node', Key: n.ID, FilterKeys: null, Namespace: '', Payload: { Node: renderNode(n) } };
  },
  [T.allocs]: (d) => {
    const a = d as unknown as StoredAlloc & Indexed;
    return { Topic: 'Allocation', Key: a.ID, FilterKeys: [a.JobID, a.DeploymentID], Namespace: a.Namespace, Payload: { Allocation: renderAlloc(a) } };
  },
  [T.jobs]: (d) => {
    const j = d as unknown as StoredJob;
    return { Topic: 'Job', Key: j.ID, FilterKeys: null, Namespace: j.Namespace, Payload: { Job: renderJob(j) } };
  },
  [T.evals]: (d) => {
    const e = d as unknown as Evaluation & Indexed;
    const rendered = renderEval(e);
    return {
      Topic: 'Evaluation',
      Key: e.ID,
      FilterKeys: [e.JobID, rendered.DeploymentID as string],
      Namespace: e.Namespace,
      Payload: { Evaluation: rendered },
    };
  },
  [T.deployments]: (d) => {
    const x = d as unknown as StoredDeployment;
    return { Topic: 'Deployment', Key: x.ID, FilterKeys: [x.JobID], Namespace: x.Namespace, Payload: { Deployment: x } };
  },
  [T.tokens]: (d) => {
    const t = d as unknown as TokenDoc & Indexed;
    return { Topic: 'ACLToken', Key: t.AccessorID, FilterKeys: null, Namespace: '', Payload: { ACLToken: renderToken(t, false) } };
  },
  [T.policies]: (d) => {
    const p = d as unknown as PolicyDoc & Indexed;
    const policy = {
      Name: p.Name,
      Description: p.Description,
      Rules: p.Rules,
      JobACL: p.JobACL ?? null,
      Hash: p.Hash,
      CreateIndex: p.CreateIndex,
      ModifyIndex: p.ModifyIndex,
    };
    return { Topic: 'ACLPolicy', Key: p.Name, FilterKeys: null, Namespace: '', Payload: { ACLPolicy: policy } };
  },
  [T.roles]: (d) => {
    const r = d as unknown as RoleDoc & Indexed;
    const role = {
      ID: r.ID,
      Name: r.Name,
      Description: r.Description,
      Policies: r.Policies,
      Hash: r.Hash,
      CreateIndex: r.CreateIndex,
      ModifyIndex: r.ModifyIndex,
    };
    return { Topic: 'ACLRole', Key: r.ID, FilterKeys: [r.Name], Namespace: '', Payload: { ACLRole: role } };
  },
  [T.authMethods]: (d) => {
    const m = d as unknown as AuthMethodDoc;
    return { Topic: 'ACLAuthMethod', Key: m.Name, FilterKeys: null, Namespace: '', Payload: { AuthMethod: renderAuthMethod(m) } };
  },
  [T.bindingRules]: (d) => {
    const r = d as unknown as BindingRuleDoc;
    const rule = {
      ID: r.ID,
      Description: r.Description,
      AuthMethod: r.AuthMethod,
      Selector: r.Selector,
      BindType: r.BindType,
      BindName: r.BindName,
      Hash: r.Hash,
      CreateTime: r.CreateTime,
      ModifyTime: r.ModifyTime,
      CreateIndex: r.CreateIndex,
      ModifyIndex: r.ModifyIndex,
    };
    return { Topic: 'ACLBindingRule', Key: r.ID, FilterKeys: [r.AuthMethod], Namespace: '', Payload: { ACLBindingRule: rule } };
  },
};

/** A batch label that types workload events: any but replication's. */
const usable = (label: string | undefined): string | undefined => (label === undefined || label === LABEL.replication ? undefined : label);

/** The event type of `change` in a batch labelled `label`; undefined: the change makes no event. */
function typeOf(change: StateChange, topic: string, label: string | undefined): string | undefined {
  const deleted = change.op === 'delete';
  switch (change.table) {
    case T.nodes:
      return label !== undefined && NODE_LABELS.has(label) ? label : deleted ? LABEL.nodeDeregister : LABEL.nodeRegister;
    case T.allocs:
      if (label !== undefined && ALLOC_LABELS.has(label)) return label;
      return deleted ? undefined : change.previous ? LABEL.allocUpdate : LABEL.allocCreate;
    case T.csiVolumes:
      if (label !== undefined && VOLUME_LABELS.has(label)) return label;
      return deleted ? LABEL.csiVolumeDeregister : change.previous ? LABEL.csiVolumeClaim : LABEL.csiVolumeRegister;
    case T.csiPlugins:
      return label !== undefined && NODE_LABELS.has(label) ? label : deleted ? LABEL.nodeDeregister : LABEL.nodeRegister;
    case T.jobs:
      return usable(label) ?? (deleted ? LABEL.jobDeregister : LABEL.jobRegister);
    case T.evals:
      return usable(label) ?? LABEL.evalUpdate;
    case T.deployments:
      return label !== undefined && DEPLOYMENT_LABELS.has(label) ? label : LABEL.deploymentStatus;
    default:
      return `${topic}${deleted ? 'Deleted' : 'Upserted'}`;
  }
}

/**
 * The events of a committed state batch (see the module doc), in change order; undefined
 * when it makes none (only namespaces or ACL bookkeeping changed). `read` (the state) finds
 * what volume payloads show of their plugin and allocations.
 */
export function eventBatchOf(batch: ChangeBatch, read: DocReader = NOTHING): EventBatch | undefined {
  const events: StreamEvent[] = [];
  for (const change of batch.changes) {
    const describe = DESCRIBE[change.table];
    const doc = change.op === 'delete' ? change.previous : change.doc;
    if (!describe || !doc) continue;
    const described = describe(doc, read);
    const type = typeOf(change, described.Topic, batch.label);
    if (type === undefined) continue;
    // The reference marks a deleted job's payload (reference/sched.md §3.4).
    const payload = change.table === T.jobs && change.op === 'delete' ? { ...described.Payload, Deleted: true } : described.Payload;
    events.push({ ...described, Payload: payload, Type: type, Index: batch.index });
  }
  return events.length > 0 ? { index: batch.index, events } : undefined;
}
