/**
 * A job's versions over HTTP (issue 29 item 2; the reference's `/v1/job/:id/versions`,
 * `/revert`, `/stable`): diffs between versions in the reference's `JobDiff` shape, each
 * against one version with `diff_version`, a revert that registers an old spec as the next
 * version (with `EnforcePriorVersion`), the refusals with the reference's texts (changing
 * nothing), and a version marked stable (the job too when it is the current one), with
 * the ACL capability each needs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { minimalJob } from './jobs-helpers.js';

/** `web` at version `n`: the task's args and a meta key change with each. */
const webVersion = (n: number) =>
  minimalJob('web', {
    Meta: { release: `r${n}` },
    TaskGroups: [{ Name: 'app', Count: n + 1, Tasks: [{ Name: 'server', Driver: 'raw_exec', Config: { command: '/bin/sleep', args: [`${300 + n}`] } }] }],
  });

describe('scheduler job versions: diffs, revert, stable', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  const versionsOf = async () => ((await req('GET', '/v1/job/web/versions')).json.Versions as { Version: number; Stable: boolean }[]).map((v) => v.Version);

  before(async () => {
    a = await startAgent({ schedulerWorkers: 0 });
    for (const n of [0, 1, 2]) assert.equal((await req('POST', '/v1/jobs', { Job: webVersion(n) })).status, 200);
  });
  after(() => a.stop());

  it("diffs: each version from the one before it, in the reference's JobDiff shape", async () => {
    const r = await req('GET', '/v1/job/web/versions?diffs=true');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.Versions.map((v: { Version: number }) => v.Version),
      [2, 1, 0],
    );
    assert.equal(r.json.Diffs.length, 2, 'one fewer diff than versions');
    const d = r.json.Diffs[0]; // version 1 → 2
    assert.deepEqual([d.Type, d.ID], ['Edited', 'web']);
    const release = d.Fields.find((f: { Name: string }) => f.Name === 'Meta[release]');
    assert.deepEqual(release, { Type: 'Edited', Name: 'Meta[release]', Old: 'r1', New: 'r2', Annotations: null });
    assert.ok(
      d.Fields.some((f: { Name: string; Type: string }) => f.Name === 'Priority' && f.Type === 'None'),
      'a contextual diff lists the unchanged fields of an edited object',
    );
    const [g] = d.TaskGroups;
    assert.deepEqual([g.Type, g.Name, g.Updates], ['Edited', 'app', null]);
    assert.deepEqual(
      g.Fields.find((f: { Name: string }) => f.Name === 'Count'),
      { Type: 'Edited', Name: 'Count', Old: '2', New: '3', Annotations: null },
    );
    const [t] = g.Tasks;
    assert.deepEqual([t.Type, t.Name], ['Edited', 'server']);
    const config = t.Objects.find((o: { Name: string }) => o.Name === 'Config');
    const args = config.Objects.find((o: { Name: string }) => o.Name === 'args');
    assert.deepEqual(
      args.Fields.map((f: { Type: string; Old: string; New: string }) => [f.Type, f.Old, f.New]),
      [
        ['Deleted', '301', ''],
        ['Added', '', '302'],
      ],
    );

    const against = await req('GET', '/v1/job/web/versions?diff_version=0');
    assert.equal(against.json.Diffs.length, 2, 'every other version against version 0');
    assert.equal(against.json.Diffs[0].Fields.find((f: { Name: string }) => f.Name === 'Meta[release]').Old, 'r0');
    const missing = await req('GET', '/v1/job/web/versions?diff_version=9');
    assert.deepEqual([missing.status, missing.text], [400, 'version 9 of job "web" not found']);
    assert.equal((await req('GET', '/v1/job/web/versions')).json.Diffs, null, 'no diffs unless asked');
  });

  it('revert registers an old version as the next one, and refuses what it cannot do with the reference texts', async () => {
    const refused: [unknown, number, string][] = [
      [{ JobVersion: 2 }, 400, "can't revert to current version"],
      [{ JobVersion: 0, EnforcePriorVersion: 1 }, 400, 'current job has version 2; enforcing version 1'],
      [{ JobVersion: 7 }, 404, 'job "web" in namespace "default" at version 7 not found'],
      [{ JobID: 'other', JobVersion: 0 }, 400, 'JobID in payload did not match URL'],
      [{ JobVersion: -1 }, 400, 'json: cannot unmarshal -1 into Go struct field JobRevertRequest.JobVersion of type uint64'],
    ];
    for (const [body, status, text] of refused) {
      const r = await req('POST', '/v1/job/web/revert', body);
      assert.deepEqual([r.status, r.text], [status, text], JSON.stringify(body));
    }
    assert.deepEqual(await versionsOf(), [2, 1, 0], 'a refused revert changes nothing');

    const r = await req('POST', '/v1/job/web/revert', { JobID: 'web', JobVersion: 0, EnforcePriorVersion: 2 });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.EvalID, /^[0-9a-f-]{36}$/);
    const job = (await req('GET', '/v1/job/web')).json;
    assert.deepEqual([job.Version, job.Meta, job.TaskGroups[0].Count, job.JobModifyIndex], [3, { release: 'r0' }, 1, r.json.JobModifyIndex]);
    assert.deepEqual(await versionsOf(), [3, 2, 1, 0]);
    const ev = (await req('GET', `/v1/evaluation/${r.json.EvalID}`)).json;
    assert.deepEqual([ev.TriggeredBy, ev.Status, ev.JobModifyIndex], ['job-register', 'pending', r.json.JobModifyIndex]);
    assert.equal((await req('POST', '/v1/job/nope/revert', { JobVersion: 0 })).status, 404);
  });

  it('stable marks a version, and the job when it is the current one', async () => {
    const r = await req('PUT', '/v1/job/web/stable', { JobID: 'web', JobVersion: 1, Stable: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Index, Number(r.headers.get('x-sched-index')));
    const versions = (await req('GET', '/v1/job/web/versions')).json.Versions as { Version: number; Stable: boolean }[];
    assert.deepEqual(
      versions.map((v) => [v.Version, v.Stable]),
      [
        [3, false],
        [2, false],
        [1, true],
        [0, false],
      ],
    );
    assert.equal((await req('GET', '/v1/job/web')).json.Stable, false, 'version 1 is not the current one');
    assert.equal((await req('PUT', '/v1/job/web/stable', { JobVersion: 3, Stable: true })).status, 200);
    assert.equal((await req('GET', '/v1/job/web')).json.Stable, true);
    const missing = await req('PUT', '/v1/job/web/stable', { JobVersion: 9, Stable: true });
    assert.deepEqual([missing.status, missing.text], [404, 'job "web" in namespace "default" at version 9 not found']);
  });

  it('revert and stable need submit-job; versions needs read-job', async () => {
    const reader = (await clientToken(a.url, 'versions-reader', 'namespace "default" { capabilities = ["read-job"] }')).secret;
    assert.equal((await req('GET', '/v1/job/web/versions?diffs=true', undefined, reader)).status, 200);
    assertDenied(await req('POST', '/v1/job/web/revert', { JobVersion: 1 }, reader));
    assertDenied(await req('PUT', '/v1/job/web/stable', { JobVersion: 1, Stable: false }, reader));
    assert.deepEqual(await versionsOf(), [3, 2, 1, 0]);
  });
});
