/**
 * Test helpers for deployments over HTTP with simulated client nodes (workloads.ts): a
 * service job of one group `g` with an `update` block, health reported as a client reports
 * it (`client-status` with `DeploymentStatus`), and reads of the job's latest deployment and
 * of a deployment's allocations.
 */
import assert from 'node:assert/strict';
import type { UpdateStrategy } from '../../src/services/sched/jobs/types.js';
import { call, ROOT } from './helpers.js';
import { group, job, until } from './workloads.js';

/** A deployment as the API shows it (the fields the tests read). */
export interface DeploymentView {
  ID: string;
  JobID: string;
  JobVersion: number;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<
    string,
    {
      Promoted: boolean;
      DesiredCanaries: number;
      DesiredTotal: number;
      PlacedAllocs: number;
      HealthyAllocs: number;
      UnhealthyAllocs: number;
      PlacedCanaries: string[] | null;
      RequireProgressBy: string;
    }
  >;
}

/** An allocation stub as `GET /v1/deployment/allocations/:id` shows it. */
export interface StubView {
  ID: string;
  Name: string;
  JobVersion: number;
  DesiredStatus: string;
  ClientStatus: string;
  DeploymentStatus: { Healthy: boolean | null; Canary: boolean } | null;
}

/** Job `id`: group `g` of `count` `/bin/sleep <sleep>` allocations with `update` over the reference's defaults. */
export function rolling(id: string, count: number, update: Partial<UpdateStrategy>, sleep = '300') {
  const g = group('g', count, { cpu: 100, memory: 64 });
  return job(id, [{ ...g, Tasks: [{ ...g.Tasks[0]!, Config: { command: '/bin/sleep', args: [sleep] } }], Update: update as UpdateStrategy }]);
}

/** Reports allocation `allocId` running with `Healthy: healthy`, as its client would. */
export async function report(url: string, allocId: string, healthy: boolean): Promise<void> {
  const r = await call(url, 'POST', `/v1/allocation/${allocId}/client-status`, {
    token: ROOT,
    body: { ClientStatus: 'running', DeploymentStatus: { Healthy: healthy } },
  });
  assert.equal(r.status, 200, r.text);
}

/** Job `jobId`'s latest deployment (`GET /v1/job/:id/deployment`), or null. */
async function latest(url: string, jobId: string): Promise<DeploymentView | null> {
  const r = await call(url, 'GET', `/v1/job/${jobId}/deployment`, { token: ROOT });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** The latest deployment of `jobId` once it is for version `version`. */
export function deploymentOf(url: string, jobId: string, version: number): Promise<DeploymentView> {
  return until(`a deployment of ${jobId} version ${version}`, async () => {
    const d = await latest(url, jobId);
    return d && d.JobVersion === version ? d : undefined;
  });
}

/** Deployment `id` once `probe` holds for it (polled up to `ms`, default 10 s). */
export function deploymentWhen(url: string, id: string, probe: (d: DeploymentView) => boolean, ms?: number): Promise<DeploymentView> {
  return until(
    `deployment ${id} to change`,
    async () => {
      const r = await call(url, 'GET', `/v1/deployment/${id}`, { token: ROOT });
      assert.equal(r.status, 200, r.text);
      return probe(r.json) ? (r.json as DeploymentView) : undefined;
    },
    ms,
  );
}

/** The allocations deployment `id` placed. */
export async function placedBy(url: string, id: string): Promise<StubView[]> {
  const r = await call(url, 'GET', `/v1/deployment/allocations/${id}`, { token: ROOT });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** Live (wanted running) allocations of a list. */
export const live = <T extends { DesiredStatus: string; ClientStatus: string }>(xs: T[]): T[] =>
  xs.filter((a) => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));

/** Every allocation of job `jobId` as stubs (`GET /v1/job/:id/allocations?all=true`). */
export async function jobAllocs(url: string, jobId: string): Promise<StubView[]> {
  const r = await call(url, 'GET', `/v1/job/${jobId}/allocations?all=true`, { token: ROOT });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** Reports every live, not yet healthy allocation of deployment `id` healthy; returns how many. */
export async function healAll(url: string, id: string): Promise<number> {
  const todo = live(await placedBy(url, id)).filter((a) => a.DeploymentStatus?.Healthy !== true);
  for (const a of todo) await report(url, a.ID, true);
  return todo.length;
}
