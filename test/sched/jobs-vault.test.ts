/**
 * A task's `vault` block (issue 27 scope 3; reference/integration.md §4) through a real
 * scheduler agent with a client without a `vault` block: the job file's block becomes the
 * reference's `Vault` JSON; the jobs API applies the reference's defaults, adds the
 * `vault_default` identity (aud `cairn-secrets`, 1 h) unless the task declares one, and the
 * group constraint `${attr.vault.accessible} = true`, warns about the ignored `policies`,
 * refuses a bad block with the reference's texts before storing anything; and the scheduler
 * does not place the task on a node without a `vault` block.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { readyNode, shTask, startClientAgent } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';

const HCL = `job "vj" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
      vault {
        role          = "web"
        change_mode   = "signal"
        change_signal = "sighup"
        disable_file  = true
        allow_token_revocation = false
      }
    }
  }
}
`;

describe('job vault blocks', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  const withVault = (id: string, vault: unknown, over: Record<string, unknown> = {}) => ({
    ID: id,
    TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'sleep 300', { Vault: vault, ...over })] }],
  });

  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
  });
  after(async () => {
    await a.stop();
  });

  it('parses the block into the reference JSON, what the file sets only', async () => {
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: HCL });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.TaskGroups[0].Tasks[0].Vault, {
      Role: 'web',
      ChangeMode: 'signal',
      ChangeSignal: 'sighup',
      DisableFile: true,
      AllowTokenRevocation: false,
    });
  });

  it('registers with the defaults, the vault_default identity and the placement constraint; not placed on a node without a vault block', async () => {
    const reg = await req('POST', '/v1/jobs', { Job: withVault('vd', {}) });
    assert.equal(reg.status, 200, reg.text);
    assert.equal(reg.json.Warnings, '');
    const stored = (await req('GET', '/v1/job/vd')).json;
    const task = stored.TaskGroups[0].Tasks[0];
    assert.deepEqual(task.Vault, {
      Role: '',
      Policies: null,
      Namespace: '',
      Cluster: 'default',
      ChangeMode: 'restart',
      ChangeSignal: '',
      Env: true,
      DisableFile: false,
      AllowTokenExpiration: false,
      AllowTokenRevocation: true,
    });
    assert.deepEqual(task.Identities, [
      { Name: 'vault_default', Audience: ['cairn-secrets'], ChangeMode: '', ChangeSignal: '', Env: false, File: false, Filepath: '', TTL: 3600e9 },
    ]);
    assert.deepEqual(stored.TaskGroups[0].Constraints, [{ LTarget: '${attr.vault.accessible}', RTarget: 'true', Operand: '=' }]);
    // The same job again is no change (the added identity and constraint compare equal).
    const again = await req('POST', '/v1/jobs', { Job: withVault('vd', {}) });
    assert.equal(again.status, 200, again.text);
    assert.equal((await req('GET', '/v1/job/vd')).json.Version, stored.Version);
    // The only node has no vault block: the task waits, filtered by the constraint.
    const evaluation = await until('a blocked evaluation', 15_000, async () => {
      const evals = (await req('GET', '/v1/job/vd/evaluations')).json as {
        FailedTGAllocs: Record<string, { ConstraintFiltered: Record<string, number> | null }> | null;
      }[];
      return evals.find((e) => e.FailedTGAllocs?.g);
    });
    assert.deepEqual(evaluation.FailedTGAllocs!.g.ConstraintFiltered, { '${attr.vault.accessible} = true': 1 });
    assert.deepEqual((await req('GET', '/v1/job/vd/allocations')).json, []);
  });

  it('keeps an identity named vault_default the task declares, and warns that policies are ignored', async () => {
    const own = { Name: 'vault_default', Audience: ['other'], TTL: 600e9 };
    const reg = await req('POST', '/v1/jobs', { Job: withVault('vo', { Policies: ['db'] }, { Identities: [own] }) });
    assert.equal(reg.status, 200, reg.text);
    assert.equal(
      reg.json.Warnings,
      '1 warning(s):\n\n* Task t has a Vault block with policies but uses workload identity to authenticate with Vault, policies will be ignored',
    );
    const task = (await req('GET', '/v1/job/vo')).json.TaskGroups[0].Tasks[0];
    assert.deepEqual(
      task.Identities.map((i: { Name: string; Audience: string[] }) => [i.Name, i.Audience]),
      [['vault_default', ['other']]],
    );
    assert.deepEqual(task.Vault.Policies, ['db']);
  });

  it('refuses a bad block with the reference texts and stores nothing', async () => {
    const cases: [unknown, string][] = [
      [{ ChangeMode: 'signal' }, 'Vault validation failed: Signal must be specified when using change mode "signal"'],
      [{ ChangeMode: 'reload' }, 'Vault validation failed: Unknown change mode "reload"'],
      [{ Policies: ['root'] }, 'Vault validation failed: Can not specify "root" policy'],
      [{ Cluster: 'other' }, 'Vault validation failed: cluster "other" is not supported: only "default"'],
      [{ Env: 'yes' }, 'json: cannot unmarshal string into Go struct field'],
      ['x', 'json: cannot unmarshal string into Go struct field Job.TaskGroups.Tasks.Vault of type api.Vault'],
    ];
    for (const [vault, text] of cases) {
      const r = await req('POST', '/v1/jobs', { Job: withVault('vbad', vault) });
      assert.equal(r.status, 400, `${JSON.stringify(vault)}: ${r.text}`);
      assert.ok(r.text.includes(text), `${JSON.stringify(vault)}: ${r.text}`);
    }
    assert.equal((await req('GET', '/v1/job/vbad')).status, 404);
  });
});
