/**
 * Parameterized jobs (issue 29 item 4; the reference's `parameterized` block, task
 * `dispatch_payload` and `POST /v1/job/:id/dispatch`) on an agent with a real client: the
 * parent is never scheduled (no evaluation, status `running`), a dispatch makes a child
 * `<id>/dispatch-<unix>-<8 hex>` with the meta merged, whose task finds the payload in its
 * `local/` file (the file on disk, mode 0644, and what the task read from it) and the meta in
 * `CAIRN_META_<key>` (also upper case); the
 * refusals of the reference's dispatch checks change nothing; the parent's summary counts its
 * children; a register may not turn a job parameterized or change its type; the HCL blocks;
 * `cairn sched job dispatch`.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliRunner } from '../cli-helpers.js';
import { allocWhen, readyNode, shTask, startClientAgent } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';
import { until } from '../processes.js';

/** The parameterized batch job `render`: its task copies the payload file to the shared `alloc/data/out` and prints the meta. */
const RENDER = {
  ID: 'render',
  Type: 'batch',
  ParameterizedJob: { Payload: 'required', MetaRequired: ['target'], MetaOptional: ['mode'] },
  Meta: { team: 'a' },
  TaskGroups: [
    {
      Name: 'g',
      Tasks: [
        shTask('work', 'cat "$CAIRN_TASK_DIR/in/payload.json" > "$CAIRN_ALLOC_DIR/data/out"; echo "target=$CAIRN_META_target mode=$CAIRN_META_MODE"', {
          DispatchPayload: { File: 'in/payload.json' },
          Resources: { CPU: 20, MemoryMB: 32 },
        }),
      ],
    },
  ],
};

describe('parameterized jobs and dispatch', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  const jobIds = async () => ((await req('GET', '/v1/jobs')).json as { ID: string }[]).map((j) => j.ID).sort();
  const { cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
  });
  after(() => a.stop());

  it('registers the parent without an evaluation; it is running and takes dispatches', async () => {
    const r = await req('POST', '/v1/jobs', { Job: RENDER });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.EvalID, r.json.EvalCreateIndex], ['', 0]);
    const job = (await req('GET', '/v1/job/render')).json;
    assert.deepEqual(
      [job.Status, job.ParameterizedJob, job.Dispatched],
      ['running', { Payload: 'required', MetaRequired: ['target'], MetaOptional: ['mode'] }, false],
    );
    assert.deepEqual((await req('GET', '/v1/job/render/evaluations')).json, []);
    const stub = ((await req('GET', '/v1/jobs')).json as { ID: string; ParameterizedJob: boolean }[]).find((j) => j.ID === 'render');
    assert.equal(stub?.ParameterizedJob, true);
  });

  it('refuses what the parameterized block does not allow, with the reference texts, and makes no child', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const cases: [unknown, string][] = [
      [{ Meta: { target: 'x' } }, 'Payload is not provided but required by parameterized job'],
      [{ Payload: b64('{}'), Meta: { target: 'x', color: 'red' } }, 'Dispatch request included unpermitted metadata keys: [color]'],
      [{ Payload: b64('{}'), Meta: { mode: 'fast' } }, 'Dispatch did not provide required meta keys: [target]'],
      [{ Payload: b64('x'.repeat(16 * 1024 + 1)), Meta: { target: 'x' } }, 'Payload exceeds maximum size; 16385 > 16384'],
      [{ Payload: 'not base64!', Meta: { target: 'x' } }, 'Payload must be base64'],
      [{ JobID: 'other', Payload: b64('{}'), Meta: { target: 'x' } }, 'JobID in payload did not match URL'],
    ];
    for (const [body, text] of cases) {
      const r = await req('POST', '/v1/job/render/dispatch', body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body).slice(0, 80));
    }
    assert.equal(
      (await req('POST', '/v1/jobs', { Job: { ID: 'plain', Type: 'batch', TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'true')] }] } })).status,
      200,
    );
    const plain = await req('POST', '/v1/job/plain/dispatch', {});
    assert.deepEqual([plain.status, plain.text], [400, 'Specified job "plain" is not a parameterized job']);
    assert.equal((await req('POST', '/v1/job/nope/dispatch', {})).status, 404);
    assert.deepEqual(await jobIds(), ['plain', 'render'], 'a refused dispatch makes no child');
  });

  it("a dispatch's child runs with the meta merged, its task reads the payload from its local/ file", async () => {
    const payload = JSON.stringify({ greeting: 'hello', n: 42 });
    const r = await req('POST', '/v1/job/render/dispatch', { Payload: Buffer.from(payload).toString('base64'), Meta: { target: 'eu', mode: 'fast' } });
    assert.equal(r.status, 200, r.text);
    const childId = r.json.DispatchedJobID as string;
    assert.match(childId, /^render\/dispatch-\d{10}-[0-9a-f]{8}$/);
    assert.match(r.json.EvalID, /^[0-9a-f-]{36}$/);
    const child = (await req('GET', `/v1/job/${encodeURIComponent(childId)}`)).json;
    assert.deepEqual([child.ParentID, child.Dispatched, child.ParameterizedJob, child.Meta], ['render', true, null, { team: 'a', target: 'eu', mode: 'fast' }]);

    const allocId = await until('the child is placed', 15_000, async () => {
      const list = (await req('GET', `/v1/job/${encodeURIComponent(childId)}/allocations`)).json as { ID: string }[];
      return list[0]?.ID;
    });
    await allocWhen(a, allocId, { what: 'the child completes', ok: (al) => al.ClientStatus === 'complete' });
    const file = join(a.dataDir, 'alloc', allocId, 'work', 'local', 'in', 'payload.json');
    assert.equal(readFileSync(file, 'utf8'), payload);
    assert.equal(statSync(file).mode & 0o777, 0o644);
    assert.equal(readFileSync(join(a.dataDir, 'alloc', allocId, 'alloc', 'data', 'out'), 'utf8'), payload, 'the task read the payload');
    const logs = await req('GET', `/v1/client/fs/logs/${allocId}?task=work&type=stdout&plain=true`);
    assert.equal(logs.text, 'target=eu mode=fast\n');

    const summary = (await req('GET', '/v1/job/render/summary')).json;
    assert.deepEqual(summary.Children, { Pending: 0, Running: 0, Dead: 1 });
  });

  it('a register may not make a job parameterized or change its type; a payload comes only with a dispatch', async () => {
    const turned = await req('POST', '/v1/jobs', { Job: { ...RENDER, ID: 'plain' } });
    assert.deepEqual([turned.status, turned.text], [400, 'cannot update non-parameterized job to being parameterized']);
    const service = await req('POST', '/v1/jobs', { Job: { ID: 'plain', TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'sleep 1')] }] } });
    assert.deepEqual([service.status, service.text], [400, 'cannot update job from type "batch" to "service"']);
    const withPayload = await req('POST', '/v1/jobs', { Job: { ...RENDER, ID: 'p2', Payload: 'e30=' } });
    assert.equal(withPayload.status, 400);
    assert.match(withPayload.text, /job can't be submitted with a payload, only dispatched/);
    const notBatch = await req('POST', '/v1/jobs', { Job: { ...RENDER, ID: 'p3', Type: 'service' } });
    assert.match(notBatch.text, /Parameterized job can only be used with "batch" or "sysbatch" scheduler/);
    const escape = await req('POST', '/v1/jobs', {
      Job: { ...RENDER, ID: 'p4', TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'true', { DispatchPayload: { File: '../../x' } })] }] },
    });
    assert.match(escape.text, /dispatch payload file "\.\.\/\.\.\/x" escapes the task's local directory/);
  });

  it('HCL: the parameterized and dispatch_payload blocks; cairn sched job dispatch', async () => {
    const hcl = `job "hcl-render" {
  type = "batch"
  parameterized {
    payload       = "optional"
    meta_optional = ["who"]
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/cat"
        args    = ["local/input.txt"]
      }
      dispatch_payload {
        file = "input.txt"
      }
    }
  }
}`;
    const parsed = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
    assert.equal(parsed.status, 200, parsed.text);
    assert.deepEqual(parsed.json.ParameterizedJob, { Payload: 'optional', MetaOptional: ['who'] });
    assert.deepEqual(parsed.json.TaskGroups[0].Tasks[0].DispatchPayload, { File: 'input.txt' });
    assert.equal((await req('POST', '/v1/jobs', { Job: parsed.json })).status, 200);

    const out = await ok('sched', 'job', 'dispatch', '-detach', '-meta', 'who=cli', 'hcl-render');
    assert.match(out, /^Dispatched Job ID = hcl-render\/dispatch-\d+-[0-9a-f]{8}\nEvaluation ID {5}= [0-9a-f-]{36}\n$/);
    const refused = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'dispatch', '-meta', 'other=1', 'hcl-render']);
    assert.deepEqual([refused.code, refused.stderr], [1, 'Error: Dispatch request included unpermitted metadata keys: [other] (HTTP 400)\n']);
  });
});
