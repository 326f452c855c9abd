/**
 * Helpers for the template hook's tests: a {@link TemplateSource} the test feeds by hand
 * (values and failures per dependency text, as `kv.block(app/config)`), and an allocation of
 * one `/bin/sh -c` task with templates run by a real {@link AllocRunner} (real processes and
 * files) in a temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { decodeJob } from '../../src/services/sched/jobs/decode.js';
import type { TaskState } from '../../src/services/sched/jobs/types.js';
import { AllocRunner } from '../../src/services/sched/client/alloc-runner.js';
import type { AllocTemplateOptions } from '../../src/services/sched/client/alloc-task-hooks.js';
import type { DependencyListener, TemplateSource } from '../../src/services/sched/client/templates/source.js';
import { describeDependency } from '../../src/services/sched/template/dependency.js';

/** A source whose values the test sets (module doc). */
class HandSource implements TemplateSource {
  private readonly listeners = new Map<string, Set<DependencyListener>>();
  private readonly values = new Map<string, unknown>();
  closed = false;

  watch(d: Parameters<TemplateSource['watch']>[0], l: DependencyListener): () => void {
    const key = describeDependency(d);
    const set = this.listeners.get(key) ?? new Set();
    set.add(l);
    this.listeners.set(key, set);
    if (this.values.has(key)) l.value(this.values.get(key));
    return () => set.delete(l);
  }

  /** Dependencies watched now. */
  watched(): string[] {
    return [...this.listeners].filter(([, s]) => s.size > 0).map(([k]) => k);
  }

  set(key: string, v: unknown): void {
    this.values.set(key, v);
    for (const l of this.listeners.get(key) ?? []) l.value(v);
  }

  fail(key: string, message: string): void {
    for (const l of this.listeners.get(key) ?? []) l.error(new Error(message));
  }

  close(): void {
    this.closed = true;
  }
}

/** A running allocation of one task with templates. */
export interface TemplateAlloc {
  readonly runner: AllocRunner;
  readonly taskDir: string;
  readonly source: HandSource;
  state(): TaskState;
  stop(): Promise<void>;
}

/**
 * Runs task `t` (`script` under `/bin/sh -c`) with `templates` (the job API's JSON) in a new
 * allocation; `opts` over the template options (a wait of 0/0 by default: renders at once).
 */
export function runTemplateAlloc(script: string, templates: Record<string, unknown>[], opts: Partial<AllocTemplateOptions> = {}): TemplateAlloc {
  const root = mkdtempSync(join(tmpdir(), 'cairn-tpl-hook-'));
  const source = new HandSource();
  const job = decodeJob(
    {
      ID: 'web',
      Type: 'service',
      TaskGroups: [
        {
          Name: 'g',
          RestartPolicy: { Attempts: 0, Mode: 'fail' },
          Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sh', args: ['-c', script] }, KillTimeout: 2e9, Templates: templates }],
        },
      ],
    },
    { namespace: 'default', region: 'global' },
  );
  let last: TaskState | undefined;
  const runner = new AllocRunner({
    alloc: {
      ID: 'a1',
      Name: 'web.g[0]',
      Namespace: 'default',
      JobID: 'web',
      TaskGroup: 'g',
      Job: job,
      DesiredStatus: 'run',
      ClientStatus: 'pending',
      TaskStates: null,
    },
    allocRoot: join(root, 'allocs'),
    datacenter: 'dc1',
    node: { attributes: {}, meta: {}, node: {} },
    drivers: { raw_exec: true },
    resumed: false,
    now: Date.now,
    report: (_id, r) => (last = r.TaskStates.t),
    onPid: () => undefined,
    templates: { source: () => source, wait: { minMs: 0, maxMs: 0 }, ...opts },
    log: silentLogger(),
  });
  return {
    runner,
    taskDir: join(root, 'allocs', 'a1', 't'),
    source,
    state: () => last ?? runner.report().TaskStates.t!,
    stop: async () => {
      await runner.stop();
      await runner.done;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
