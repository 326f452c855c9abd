/**
 * Writing an agent's node entries to the catalog (the anti-entropy of local-agent.ts):
 * what the agent keeps for itself (its node, the `serfHealth` check, the `consul`
 * service), and the two ways a full sync reaches the catalog:
 *
 * - {@link writeEntries}: one transaction on a state this agent may write, storing only
 *   what differs and deleting the node's entries the agent does not own;
 * - {@link sendEntries}: on a follower of a shared state, the differences between the
 *   agent's entries and its copy of the state, sent to the leader as the reference's
 *   agents send them (`catalog/register`, then `catalog/deregister`).
 *
 * @module
 */
import type { StateStore } from '../../../kernel/store/index.js';
import { CT, memberKey, SERF_ALIVE_OUTPUT, SERF_CHECK_ID, type CheckDoc, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { checksOf, putIfChanged, same, servicesOf, writeCheck } from '../catalog/register.js';
import { reconcileSessions } from '../sessions/store.js';

/** The ID (and name) of the service every agent registers for itself (the reference's `consul`). */
const SELF_SERVICE_ID = 'consul';

/** What a node's catalog entries should be. */
export interface NodeEntries {
  readonly node: NodeDoc;
  readonly services: readonly ServiceDoc[];
  readonly checks: readonly CheckDoc[];
}

/** Sends a catalog write (`path` under `/v1/`, JSON `body`) to the leader. @throws when the leader is unknown or refuses it. */
export type SendToLeader = (path: 'catalog/register' | 'catalog/deregister', body: object) => Promise<void>;

/** The entries an agent keeps for itself: its node (address in every tagged address), `serfHealth` (passing) and the `consul` service on its HTTP port. */
export function selfEntries(a: { name: string; id: string; address: string; datacenter: string; port: number }): NodeEntries {
  return {
    node: {
      ID: a.id,
      Node: a.name,
      Address: a.address,
      Datacenter: a.datacenter,
      TaggedAddresses: { lan: a.address, lan_ipv4: a.address, wan: a.address, wan_ipv4: a.address },
      Meta: { 'consul-network-segment': '' },
    },
    services: [
      {
        Node: a.name,
        ID: SELF_SERVICE_ID,
        Service: SELF_SERVICE_ID,
        Tags: [],
        Address: '',
        TaggedAddresses: null,
        Meta: {},
        Port: a.port,
        Weights: { Passing: 1, Warning: 1 },
        EnableTagOverride: false,
      },
    ],
    checks: [
      {
        Node: a.name,
        CheckID: SERF_CHECK_ID,
        Name: 'Serf Health Status',
        Status: 'passing',
        Notes: '',
        Output: SERF_ALIVE_OUTPUT,
        ServiceID: '',
        ServiceName: '',
        ServiceTags: [],
        Type: '',
        Interval: '',
        Timeout: '',
        Definition: {},
      },
    ],
  };
}

/** Makes the catalog hold exactly `want` for its node, in one transaction, invalidating the sessions a critical or removed check breaks (at `nowMs`, epoch ms). */
export async function writeEntries(state: StateStore, want: NodeEntries, nowMs: number): Promise<void> {
  const name = want.node.Node;
  await state.txn((tx) => {
    putIfChanged(tx, CT.nodes, name, want.node);
    const services = new Set(want.services.map((s) => s.ID));
    for (const s of servicesOf(tx, name)) if (!services.has(s.ID)) tx.delete(CT.services, memberKey(name, s.ID));
    for (const s of want.services) putIfChanged(tx, CT.services, memberKey(name, s.ID), s);
    const checks = new Set(want.checks.map((c) => c.CheckID));
    for (const c of checksOf(tx, name)) if (!checks.has(c.CheckID)) tx.delete(CT.checks, memberKey(name, c.CheckID));
    for (const c of want.checks) writeCheck(tx, c);
    reconcileSessions(tx, name, nowMs);
  }, 'anti-entropy');
}

/**
 * Sends the leader what differs between `want` and `state` (this follower's copy):
 * registrations first (the node, each service with its checks, node checks), then
 * deregistrations (a check of a service deregistered goes with it).
 */
export async function sendEntries(state: StateStore, want: NodeEntries, send: SendToLeader): Promise<void> {
  const n = want.node;
  const name = n.Node;
  const nodeBody = { ID: n.ID, Node: name, Address: n.Address, Datacenter: n.Datacenter, TaggedAddresses: n.TaggedAddresses, NodeMeta: n.Meta };
  const current = state.get<NodeDoc>(CT.nodes, name);
  if (!current || !same(current, n)) await send('catalog/register', nodeBody);
  const checks = want.checks.filter((c) => {
    const have = state.get<CheckDoc>(CT.checks, memberKey(name, c.CheckID));
    return !have || !same(have, c);
  });
  // A service goes with its checks in one write, so it never shows without them (as a
  // passing instance, say, before its critical check arrives).
  for (const s of want.services) {
    const have = state.get<ServiceDoc>(CT.services, memberKey(name, s.ID));
    const own = checks.filter((c) => c.ServiceID === s.ID);
    if (!have || !same(have, s) || own.length > 0) await send('catalog/register', { ...nodeBody, SkipNodeUpdate: true, Service: s, Checks: own });
  }
  for (const c of checks) if (c.ServiceID === '') await send('catalog/register', { ...nodeBody, SkipNodeUpdate: true, Check: c });
  const services = new Set(want.services.map((s) => s.ID));
  const gone = new Set<string>();
  // Deregistrations last: what stays was written above.
  for (const s of servicesOf(state, name)) {
    if (services.has(s.ID)) continue;
    gone.add(s.ID);
    await send('catalog/deregister', { Node: name, ServiceID: s.ID });
  }
  const owned = new Set(want.checks.map((c) => c.CheckID));
  for (const c of checksOf(state, name)) {
    if (!owned.has(c.CheckID) && !gone.has(c.ServiceID)) await send('catalog/deregister', { Node: name, CheckID: c.CheckID });
  }
}
