/**
 * Ports as a placement dimension (issue 26 scope 1; reference/integration.md §1): with
 * simulated nodes that report their host networks, dynamic port range and reserved ports,
 * the scheduler gives each allocation its ports (`AllocatedResources.Shared.Ports` and
 * `Networks` in the reference's shape), never a port twice on a node (also for 20 jobs
 * registered at once, and when two plans made from the same state meet at the plan applier),
 * blocks a group whose static port is held with the reference's `DimensionExhausted` text,
 * and filters nodes without a port's host network.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { KeyedLock } from '../../src/services/sched/csi/locks.js';
import type { SchedDeps } from '../../src/services/sched/deps.js';
import type { NetworkResource } from '../../src/services/sched/jobs/network.js';
import { newEvaluation, type Evaluation, type Job } from '../../src/services/sched/jobs/types.js';
import { applyPlan } from '../../src/services/sched/scheduler/apply.js';
import { computePlan } from '../../src/services/sched/scheduler/schedule.js';
import { T } from '../../src/services/sched/state.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { allocsOf, group, job, putJob, running, settled, simNode, until, type AllocView } from './workloads.js';

interface Ported {
  Ports?: { Label: string; Value: number; To: number; HostIP: string }[];
  Networks?: NetworkResource[];
}
const shared = (a: AllocView): Ported => (a.AllocatedResources as unknown as { Shared: Ported }).Shared;

/** A node on 127.0.0.1 (and 10.1.2.3 as host network `private` when asked) with dynamic ports `min`–`max` and `reserved` ports. */
function netNode(o: { min: number; max: number; reserved?: string; privateNet?: boolean }): Record<string, unknown> {
  const addresses = [{ Family: 'ipv4', Alias: 'default', Address: '127.0.0.1', ReservedPorts: '', Gateway: '' }];
  if (o.privateNet) addresses.push({ Family: 'ipv4', Alias: 'private', Address: '10.1.2.3', ReservedPorts: '', Gateway: '' });
  return {
    NodeResources: {
      Cpu: { CpuShares: 100_000 },
      Memory: { MemoryMB: 100_000 },
      Networks: [{ Mode: 'host', Device: 'lo', CIDR: '127.0.0.1/32', IP: '127.0.0.1', MBits: 1000 }],
      NodeNetworks: [{ Mode: 'host', Device: 'lo', Speed: 1000, Addresses: addresses }],
      MinDynamicPort: o.min,
      MaxDynamicPort: o.max,
    },
    ReservedResources: { Networks: { ReservedHostPorts: o.reserved ?? '' } },
  };
}

/** A job `id` of one group of `count` small tasks with `network`. */
function portJob(id: string, network: Partial<NetworkResource>, count = 1): Job {
  const net = { Mode: 'host', Device: '', CIDR: '', IP: '', Hostname: '', MBits: 0, DNS: null, ReservedPorts: null, DynamicPorts: null, ...network };
  return job(id, [group('g', count, { cpu: 10, memory: 10, over: { Networks: [net] } })]);
}

const port = (Label: string, Value = 0, HostNetwork = 'default', To = 0) => ({ Label, Value, To, HostNetwork });

describe('scheduler: ports', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it('gives each allocation its static and dynamic ports from the node, never the reserved ones, in the reference shape', async () => {
    const node = await simNode(a.url, 'p1', { over: { ...netNode({ min: 21000, max: 21004, reserved: '21000-21001,21003' }), Meta: { pool: 'p1' } } });
    const j = portJob('ports-a', { ReservedPorts: [port('admin', 9090)], DynamicPorts: [port('http'), port('api', 0, 'default', 80)] }, 1);
    const placedOn = { ...j, Constraints: [{ LTarget: '${node.unique.id}', RTarget: node, Operand: '=' }] };
    await settled(a, await putJob(a, placedOn));
    const [alloc] = running(await allocsOf(a.url, 'ports-a'));
    assert.ok(alloc, 'placed');
    const s = shared(alloc);
    // Only 21002 and 21004 are free in 21000–21004 with 21000, 21001 and 21003 reserved.
    const dyn = s.Ports!.filter((p) => p.Label !== 'admin');
    assert.deepEqual(dyn.map((p) => p.Value).sort(), [21002, 21004]);
    assert.deepEqual(s.Ports![0], { Label: 'admin', Value: 9090, To: 0, HostIP: '127.0.0.1' });
    assert.equal(s.Ports!.find((p) => p.Label === 'api')!.To, 80);
    assert.equal(s.Networks!.length, 1);
    const net = s.Networks![0]!;
    assert.deepEqual([net.Mode, net.IP, net.Device, net.CIDR], ['host', '127.0.0.1', 'lo', '127.0.0.1/32']);
    assert.deepEqual(net.ReservedPorts, [port('admin', 9090)]);
    assert.deepEqual(
      net.DynamicPorts!.map((p) => [p.Label, p.Value]),
      dyn.map((p) => [p.Label, p.Value]),
    );
    // The node's range is used up: a second allocation there is blocked on the dynamic port dimension.
    const more = {
      ...placedOn,
      ID: 'ports-b',
      Name: 'ports-b',
      TaskGroups: [{ ...placedOn.TaskGroups[0]!, Networks: [{ ...s.Networks![0]!, ReservedPorts: null, DynamicPorts: [port('http')] }] }],
    };
    const e = await settled(a, await putJob(a, more));
    assert.equal(e.Status, 'complete');
    assert.deepEqual(e.FailedTGAllocs?.g?.DimensionExhausted, { 'network: dynamic port selection failed': 1 });
  });

  it('blocks a group whose static port the node already gives, with the reason in FailedTGAllocs', async () => {
    const b = await startAgent();
    try {
      await simNode(b.url, 'one', { over: netNode({ min: 20000, max: 32000 }) });
      await settled(b, await putJob(b, portJob('first', { ReservedPorts: [port('http', 8080)] })));
      assert.equal(running(await allocsOf(b.url, 'first')).length, 1);
      const e = await settled(b, await putJob(b, portJob('second', { ReservedPorts: [port('http', 8080)] })));
      assert.equal(e.Status, 'complete');
      assert.equal(e.FailedTGAllocs?.g?.NodesExhausted, 1);
      assert.deepEqual(e.FailedTGAllocs?.g?.DimensionExhausted, { 'network: reserved port collision http=8080': 1 });
      assert.ok(e.BlockedEval, 'a blocked evaluation waits for the port');
      assert.equal(running(await allocsOf(b.url, 'second')).length, 0);
      // The plan endpoint shows the same reason before anything is written.
      const plan = await call(b.url, 'POST', '/v1/job/third/plan', { token: ROOT, body: { Job: portJob('third', { ReservedPorts: [port('x', 8080)] }) } });
      assert.equal(plan.status, 200, plan.text);
      assert.deepEqual(plan.json.FailedTGAllocs.g.DimensionExhausted, { 'network: reserved port collision x=8080': 1 });
      // Stopping the first job frees the port: the blocked one is placed.
      assert.equal((await call(b.url, 'DELETE', '/v1/job/first', { token: ROOT })).status, 200);
      const placed = await until('second placed', async () => running(await allocsOf(b.url, 'second'))[0], 15_000);
      assert.equal(shared(placed).Ports![0]!.Value, 8080);
    } finally {
      await b.stop();
    }
  });

  it('never gives one port twice on a node to 20 jobs registered at once', async () => {
    const c = await startAgent();
    try {
      const node = await simNode(c.url, 'busy', { over: netNode({ min: 30000, max: 30024 }) });
      const ids = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
      const evals = await Promise.all(ids.map((id) => putJob(c, portJob(id, { DynamicPorts: [port('http')] }))));
      await Promise.all(evals.map((e) => settled(c, e)));
      const ports: number[] = [];
      await until(
        '20 allocations placed',
        async () => {
          ports.length = 0;
          for (const id of ids) for (const x of running(await allocsOf(c.url, id))) ports.push(...shared(x).Ports!.map((p) => p.Value));
          return ports.length === 20;
        },
        15_000,
      );
      assert.equal(new Set(ports).size, 20, `distinct ports: ${ports.join(',')}`);
      assert.ok(ports.every((p) => p >= 30000 && p <= 30024));
      const onNode = running(await allocsOf(c.url, 'burst-0'))[0]!;
      assert.equal(onNode.NodeID, node);
    } finally {
      await c.stop();
    }
  });

  it('refuses at the plan applier a port another plan gave since this one was made', async () => {
    const d = await startAgent();
    try {
      await simNode(d.url, 'narrow', { over: netNode({ min: 25000, max: 25000 }) });
      const deps = { state: d.state, now: Date.now, plugins: d.plugins, volumeLocks: new KeyedLock() } as unknown as SchedDeps;
      const plans = [];
      for (const id of ['left', 'right']) {
        const j = portJob(id, { DynamicPorts: [port('http')] });
        await d.state.txn((tx) => tx.put(T.jobs, `default/${id}`, j));
        const evaluation: Evaluation = newEvaluation(randomUUID(), j, { triggeredBy: 'job-register', nowNs: Date.now() * 1e6 });
        plans.push(computePlan(deps, d.state, evaluation, { nowNs: Date.now() * 1e6 }));
      }
      // Planned from the same state (the job puts write no evaluation, so the agent's own workers stay idle): each got the node's one dynamic port.
      assert.deepEqual(
        plans.map((p) => p.places[0]?.AllocatedResources.Shared.Ports?.[0]?.Value),
        [25000, 25000],
      );
      const first = await applyPlan(deps, plans[0]!, Date.now() * 1e6);
      const second = await applyPlan(deps, plans[1]!, Date.now() * 1e6);
      assert.deepEqual([first.placed, first.refused, second.placed, second.refused], [1, 0, 0, 1]);
      assert.equal((await allocsOf(d.url, 'right')).length, 0);
    } finally {
      await d.stop();
    }
  });

  it('places a port on a named host network only on nodes that have it, on its address', async () => {
    const e = await startAgent();
    try {
      await simNode(e.url, 'plain', { over: netNode({ min: 20000, max: 32000 }) });
      const withNet = await simNode(e.url, 'private', { over: netNode({ min: 20000, max: 32000, privateNet: true }) });
      await settled(e, await putJob(e, portJob('inner', { DynamicPorts: [port('db', 0, 'private')] }, 2)));
      const allocs = running(await allocsOf(e.url, 'inner'));
      assert.equal(allocs.length, 2);
      for (const x of allocs) {
        assert.equal(x.NodeID, withNet);
        assert.equal(shared(x).Ports![0]!.HostIP, '10.1.2.3');
      }
      assert.notEqual(shared(allocs[0]!).Ports![0]!.Value, shared(allocs[1]!).Ports![0]!.Value);
      const blocked = await settled(e, await putJob(e, portJob('nowhere', { DynamicPorts: [port('db', 0, 'dmz')] })));
      assert.deepEqual(blocked.FailedTGAllocs?.g?.ConstraintFiltered, { 'missing host network "dmz" for port "db"': 2 });
    } finally {
      await e.stop();
    }
  });
});
