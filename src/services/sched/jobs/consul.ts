/**
 * The `consul` block of a task group and of a task (issue 27 scope 4; reference/integration.md
 * §4, the reference's `api.Consul`): which discovery service a task's or service's token comes
 * from. JSON `Consul` on a group and on a task, HCL `consul { … }`:
 *
 * ```json
 * "Consul": { "Cluster": "default", "Namespace": "", "Partition": "" }
 * ```
 *
 * A task's block overrides its group's entirely (the reference). Cairn has one discovery
 * service: `Cluster` must be `default` (or empty); `Namespace` and `Partition` (the reference's
 * Enterprise fields) are accepted and kept, with no effect. A task whose group or own block is
 * set gets the `consul_default` identity at submit (jobs/consul-identities.ts), and with it a
 * discovery token (client/discovery-token.ts).
 *
 * @module
 */
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { defined, type Body } from './hcl-values.js';

/** The reference's `api.Consul` (all strings; `""` unset). */
export interface ConsulBlock {
  readonly Cluster: string;
  readonly Namespace: string;
  readonly Partition: string;
}

/** The one discovery service's cluster name (the reference's `structs.ConsulDefaultCluster`). */
const DEFAULT_CONSUL_CLUSTER = 'default';
/** The reference's `validConsulVaultClusterName`. */
const CLUSTER_NAME = /^[a-zA-Z0-9-_]{1,128}$/;
/** Namespaces and partitions: a bounded, printable name. */
const SCOPE_NAME = /^[a-zA-Z0-9-_.]{0,64}$/;

/** The keys of a `consul` block of a job file (kernel/config schema). */
export const CONSUL_HCL_KEYS = {
  kind: 'block',
  keys: { cluster: { kind: 'string' }, namespace: { kind: 'string' }, partition: { kind: 'string' } },
} as const;

/** The job API's `Consul` of an HCL `consul` block (undefined without one). */
export function consulFromHcl(b: Body | undefined): Record<string, unknown> | undefined {
  return b && defined({ Cluster: b.cluster, Namespace: b.namespace, Partition: b.partition });
}

/**
 * The `Consul` of a group or task (`path` names it); absent or null → undefined, so jobs
 * without one store (and compare) as before. @throws 400 Go's decoder text for a wrong kind.
 */
export function decodeConsul(raw: Record<string, unknown>, path: string): ConsulBlock | undefined {
  const v = fieldOf(raw, 'Consul');
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.Consul of type api.Consul`);
  const d = decodeGoStruct(v, `${path}.Consul`, { Cluster: 'string', Namespace: 'string', Partition: 'string' });
  return { Cluster: (d.Cluster as string) || DEFAULT_CONSUL_CLUSTER, Namespace: d.Namespace as string, Partition: d.Partition as string };
}

/** What is wrong with a `consul` block (empty: nothing), in the reference's texts where it has them. */
export function consulErrors(c: ConsulBlock | null | undefined): string[] {
  if (!c) return [];
  const out: string[] = [];
  if (!CLUSTER_NAME.test(c.Cluster)) out.push(`consul: invalid name ${JSON.stringify(c.Cluster)}, must match regex ${CLUSTER_NAME.source}`);
  else if (c.Cluster !== DEFAULT_CONSUL_CLUSTER)
    out.push(`consul: cluster ${JSON.stringify(c.Cluster)} is not configured: Cairn has one discovery service ("default")`);
  if (!SCOPE_NAME.test(c.Namespace)) out.push(`consul: namespace must be at most 64 letters, digits, "-", "_" or ".", got ${JSON.stringify(c.Namespace)}`);
  if (!SCOPE_NAME.test(c.Partition)) out.push(`consul: partition must be at most 64 letters, digits, "-", "_" or ".", got ${JSON.stringify(c.Partition)}`);
  return out;
}
