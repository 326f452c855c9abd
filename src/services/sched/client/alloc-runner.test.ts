// An allocation whose job names a task so that its directory would leave the allocation
// directory (a job stored before the jobs API refused such names) fails at once, and nothing
// is made outside the allocation's directory.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../kernel/log/logger.js';
import type { Job } from '../jobs/types.js';
import { AllocRunner, type AllocReport } from './alloc-runner.js';

describe('AllocRunner', () => {
  for (const name of ['..', '.', 'alloc', 'a/b']) {
    it(`fails an allocation whose task is named ${JSON.stringify(name)} without making its directory`, async () => {
      const root = mkdtempSync(join(tmpdir(), 'cairn-alloc-runner-'));
      try {
        const allocRoot = join(root, 'allocs');
        const job = {
          ID: 'j',
          Type: 'batch',
          TaskGroups: [{ Name: 'g', Tasks: [{ Name: name, Driver: 'raw_exec', Config: { command: '/bin/true' } }] }],
        } as unknown as Job;
        const reports: AllocReport[] = [];
        const runner = new AllocRunner({
          alloc: {
            ID: 'a1',
            Name: 'j.g[0]',
            Namespace: 'default',
            JobID: 'j',
            TaskGroup: 'g',
            Job: job,
            DesiredStatus: 'run',
            ClientStatus: 'pending',
            TaskStates: null,
          },
          allocRoot,
          datacenter: 'dc1',
          node: { attributes: {}, meta: {}, node: {} },
          drivers: { raw_exec: true },
          resumed: false,
          now: Date.now,
          report: (_id, r) => reports.push(r),
          onPid: () => undefined,
          log: silentLogger(),
        });
        await runner.done;
        assert.equal(reports.length, 1);
        assert.equal(reports[0]!.ClientStatus, 'failed');
        assert.equal(reports[0]!.ClientDescription, `task name "${name}" cannot be a directory of the allocation`);
        assert.deepEqual(readdirSync(root), existsSync(allocRoot) ? ['allocs'] : []);
        assert.ok(!existsSync(join(allocRoot, 'a1')), 'no allocation directory');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
