// The service registration benches (issue 26 "Measure") at a tiny scale, so they keep working
// as the APIs they drive change (benches run only by hand). No figure is judged here: each
// measurement itself fails when the discovery agent does not end up as expected.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { measureReconcile } from '../bench/sched-reconcile.js';
import { measureServiceRegistration } from '../bench/sched-services.js';

it('sched-service-register: a job of 3 HTTP services on a real client passes in the discovery agent', { timeout: 180_000 }, async () => {
  const r = await measureServiceRegistration({ instances: 3, rounds: 1, steadySeconds: 1 });
  assert.equal(r.rounds.length, 1);
  const [round] = r.rounds;
  assert.ok(round!.passingMs > 0 && round!.registeredMs > 0 && round!.firstPassingMs <= round!.passingMs, JSON.stringify(r));
  for (const v of [...Object.values(round!.cpu), ...Object.values(r.steady)]) assert.ok(Number.isFinite(v) && v >= 0, JSON.stringify(r));
});

it('sched-service-reconcile: passes in sync, after the agent lost them, and of a restarted client', { timeout: 180_000 }, async () => {
  const r = await measureReconcile({ registrations: 20, inSyncPasses: 2, writePasses: 1 });
  assert.equal(r.registrations, 20);
  assert.deepEqual([r.inSync.wallMs.length, r.reRegister.wallMs.length, r.removeStale.wallMs.length], [2, 1, 1]);
  for (const f of [r.inSync, r.reRegister, r.removeStale]) assert.ok(f.wallMs.every((ms) => ms > 0) && Number.isFinite(f.agentCpuMsPerPass), JSON.stringify(r));
});
