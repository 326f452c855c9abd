// The deployment health tracker on a fake clock (node:test's mock timers): min_healthy_time
// runs without a break (a restart or a failing check starts it again), healthy_deadline
// decides unhealthy with the reference's reasons, a dead task decides at once, and the
// decision is told once. Which allocations are tracked at all: healthStrategy.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Job } from '../jobs/types.js';
import { DeploymentHealth, healthStrategy, type CheckHealth, type HealthDecision, type HealthView } from './deployment-health.js';

const S = 1e9;
const running = (Restarts = 0) => ({ State: 'running', Failed: false, Restarts });
const pending = (Restarts = 0) => ({ State: 'pending', Failed: false, Restarts });
const check = (status: CheckHealth['status'], o: Partial<CheckHealth> = {}): CheckHealth => ({
  service: 'web',
  task: 't',
  status,
  onUpdate: 'require_healthy',
  ...o,
});

/** A tracker with `strategy` over the defaults below; its decisions are collected. */
function tracker(strategy: Partial<{ HealthCheck: string; MinHealthyTime: number; HealthyDeadline: number }> = {}) {
  const decisions: HealthDecision[] = [];
  const h = new DeploymentHealth({
    strategy: { HealthCheck: 'task_states', MinHealthyTime: 1 * S, HealthyDeadline: 10 * S, ...strategy },
    now: () => Date.now(),
    decided: (d) => decisions.push(d),
  });
  return { h, decisions };
}
const view = (tasks: HealthView['tasks'], checks: CheckHealth[] = []): HealthView => ({ tasks, checks });

describe('deployment health tracker', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('task_states: healthy once every task has run for min_healthy_time; told once', () => {
    const { h, decisions } = tracker();
    h.observe(view({ a: pending(), b: pending() }));
    mock.timers.tick(5_000);
    h.observe(view({ a: running(), b: pending() }));
    mock.timers.tick(2_000);
    assert.equal(decisions.length, 0, 'one task still pending');
    h.observe(view({ a: running(), b: running() }));
    mock.timers.tick(999);
    assert.equal(decisions.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(decisions, [{ healthy: true, atMs: 1_008_000, reasons: {} }]);
    assert.ok(h.finished);
    h.observe(view({ a: { State: 'dead', Failed: true, Restarts: 0 }, b: running() }));
    mock.timers.tick(20_000);
    assert.equal(decisions.length, 1, 'decided once: nothing after it, not even the deadline');
  });

  it('a restart within min_healthy_time starts it again, whether the pending state was seen or only the restart count', () => {
    const { h, decisions } = tracker();
    h.observe(view({ a: running() }));
    mock.timers.tick(600);
    h.observe(view({ a: pending(1) }));
    h.observe(view({ a: running(1) }));
    mock.timers.tick(900);
    // Only the count tells this restart (the pending state between was not shown).
    h.observe(view({ a: running(2) }));
    mock.timers.tick(999);
    assert.equal(decisions.length, 0);
    mock.timers.tick(1);
    assert.equal(decisions[0]?.healthy, true);
    assert.equal(decisions[0]?.atMs, 1_000_000 + 600 + 900 + 1000);
  });

  it('checks: waits for every check to pass; a failing check starts min_healthy_time again; warnings pass with ignore_warnings, ignore leaves a check out', () => {
    const { h, decisions } = tracker({ HealthCheck: 'checks' });
    const tasks = { t: running() };
    h.observe(view(tasks, [check(undefined), check(undefined, { service: 'grp', task: undefined })]));
    mock.timers.tick(3_000);
    assert.equal(decisions.length, 0, 'tasks run but the checks are not registered yet');
    h.observe(view(tasks, [check('passing'), check('passing', { service: 'grp', task: undefined })]));
    mock.timers.tick(800);
    h.observe(view(tasks, [check('critical'), check('passing', { service: 'grp', task: undefined })]));
    mock.timers.tick(500);
    h.observe(
      view(tasks, [
        check('passing'),
        check('warning', { service: 'grp', task: undefined, onUpdate: 'ignore_warnings' }),
        check('critical', { onUpdate: 'ignore' }),
      ]),
    );
    mock.timers.tick(999);
    assert.equal(decisions.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(decisions, [{ healthy: true, atMs: 1_000_000 + 3_000 + 800 + 500 + 1_000, reasons: {} }]);
  });

  it('task_states ignores the checks', () => {
    const { h, decisions } = tracker();
    h.observe(view({ t: running() }, [check('critical')]));
    mock.timers.tick(1_000);
    assert.equal(decisions[0]?.healthy, true);
  });

  it('healthy_deadline first: unhealthy, each task named with the reference reason', () => {
    const { h, decisions } = tracker({ HealthCheck: 'checks', MinHealthyTime: 10 * S, HealthyDeadline: 5 * S });
    h.observe(
      view({ failing: running(), unregistered: running(), young: pending(), fine: running() }, [
        check('critical', { task: 'failing', service: 'api' }),
        check('passing', { task: 'failing', service: 'admin' }),
        check('passing', { task: 'unregistered' }),
        check(undefined, { task: 'unregistered' }),
        check('critical', { task: 'fine', onUpdate: 'ignore' }),
      ]),
    );
    mock.timers.tick(2_000);
    h.observe(
      view({ failing: running(), unregistered: running(), young: running(), fine: running() }, [
        check('critical', { task: 'failing', service: 'api' }),
        check('passing', { task: 'failing', service: 'admin' }),
        check('passing', { task: 'unregistered' }),
        check(undefined, { task: 'unregistered' }),
        check('critical', { task: 'fine', onUpdate: 'ignore' }),
      ]),
    );
    mock.timers.tick(2_999);
    assert.equal(decisions.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(decisions, [
      {
        healthy: false,
        atMs: 1_005_000,
        reasons: {
          failing: 'Task not running for min_healthy_time of 10s by deadline',
          unregistered: 'Task not running for min_healthy_time of 10s by deadline',
          young: 'Task not running for min_healthy_time of 10s by deadline',
          fine: 'Task not running for min_healthy_time of 10s by deadline',
        },
      },
    ]);
  });

  it('the checks name what is not healthy by the deadline', () => {
    const { h, decisions } = tracker({ HealthCheck: 'checks', MinHealthyTime: 1 * S, HealthyDeadline: 5 * S });
    const tasks = { failing: running(), unregistered: running(), stopped: pending(1), fine: running() };
    h.observe(
      view(tasks, [
        check('critical', { task: 'failing', service: 'api' }),
        check('warning', { task: 'failing', service: 'admin' }),
        check('passing', { task: 'failing', service: 'ok' }),
        check('passing', { task: 'unregistered' }),
        check(undefined, { task: 'unregistered' }),
        check('critical', { task: 'fine', onUpdate: 'ignore' }),
      ]),
    );
    mock.timers.tick(5_000);
    assert.deepEqual(decisions[0]?.reasons, {
      failing: 'Services not healthy by deadline: api, admin',
      unregistered: 'Only 1 out of 2 checks registered and passing',
      stopped: 'Task not running by deadline',
    });
    assert.equal(decisions[0]?.healthy, false);
  });

  it('a dead task decides unhealthy at once: the failed one is named', () => {
    const { h, decisions } = tracker();
    h.observe(view({ a: running(), b: running() }));
    mock.timers.tick(500);
    h.observe(view({ a: { State: 'dead', Failed: true, Restarts: 2 }, b: running() }));
    assert.deepEqual(decisions, [{ healthy: false, atMs: 1_000_500, reasons: { a: 'Unhealthy because of failed task' } }]);
    mock.timers.tick(20_000);
    assert.equal(decisions.length, 1);
  });

  it('stopped (the allocation stops): no decision', () => {
    const { h, decisions } = tracker();
    h.observe(view({ a: running() }));
    h.stop();
    mock.timers.tick(20_000);
    assert.equal(decisions.length, 0);
  });
});

describe('healthStrategy: which allocations the client decides the health of', () => {
  const update = {
    Stagger: 0,
    MaxParallel: 2,
    HealthCheck: 'task_states',
    MinHealthyTime: S,
    HealthyDeadline: 5 * S,
    ProgressDeadline: 0,
    AutoRevert: false,
    AutoPromote: false,
    Canary: 0,
  };
  const job = (o: { type?: string; group?: unknown; job?: unknown } = {}) =>
    ({ Type: o.type ?? 'service', Update: o.job ?? null, TaskGroups: [{ Name: 'g', ...(o.group !== undefined && { Update: o.group }) }] }) as unknown as Job;
  const alloc = (j: Job, o: { DeploymentID?: string; Healthy?: boolean | null } = {}) => ({
    TaskGroup: 'g',
    Job: j,
    DeploymentID: o.DeploymentID ?? 'd1',
    DeploymentStatus: o.Healthy === undefined ? null : { Healthy: o.Healthy },
  });

  it("the group's strategy of a deployment's allocation whose health is undecided", () => {
    assert.deepEqual(healthStrategy(alloc(job({ group: update }))), update);
    assert.deepEqual(healthStrategy(alloc(job({ group: update }), { Healthy: null })), update);
    // The job's update block with the reference's defaults (checks, 10 s, 5 m) when the group has none of its own.
    const fromJob = healthStrategy(alloc(job({ job: { MaxParallel: 1 } })));
    assert.deepEqual([fromJob?.HealthCheck, fromJob?.MinHealthyTime, fromJob?.HealthyDeadline], ['checks', 10 * S, 300 * S]);
  });

  it('nothing to track: no deployment, manual, decided already, not a service job, no deployment strategy', () => {
    assert.equal(healthStrategy(alloc(job({ group: update }), { DeploymentID: '' })), null);
    assert.equal(healthStrategy(alloc(job({ group: { ...update, HealthCheck: 'manual' } }))), null);
    assert.equal(healthStrategy(alloc(job({ group: update }), { Healthy: false })), null);
    assert.equal(healthStrategy(alloc(job({ group: update }), { Healthy: true })), null);
    assert.equal(healthStrategy(alloc(job({ type: 'batch', group: update }))), null);
    assert.equal(healthStrategy(alloc(job({ group: { ...update, MaxParallel: 0 } }))), null);
    assert.equal(healthStrategy(alloc(job({ group: null }))), null);
    assert.equal(healthStrategy({ ...alloc(job({ group: update })), Job: null }), null);
  });
});
