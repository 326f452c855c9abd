/**
 * The dispatch payload hook (the reference's `dispatch_hook`): before a dispatched job's
 * task first starts, its payload (jobs/parameterized.ts) is written to the task's
 * `local/<dispatch_payload.file>`, mode 0644, creating the directories on the way. The file
 * name was checked on register to stay inside `local/`; it is checked again here, against
 * the directory as it is on disk, so a symbolic link cannot take the write elsewhere.
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Job, Task } from '../jobs/types.js';
import { confinedPath } from './alloc-dir.js';
import type { TaskHook } from './task-hooks.js';

/** The hook of `task` in `job` when the job has a payload and the task takes it; undefined otherwise. */
export function dispatchPayloadHook(job: Pick<Job, 'Payload'>, task: Pick<Task, 'DispatchPayload'>, taskDir: string): TaskHook | undefined {
  const file = task.DispatchPayload?.File;
  if (!file || !job.Payload) return undefined;
  const payload = Buffer.from(job.Payload, 'base64');
  return {
    name: 'dispatch_payload',
    async prestart() {
      const local = join(taskDir, 'local');
      const target = join(local, file);
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      // The parent directory as it resolves on disk must still be under local/.
      confinedPath(local, dirname(file));
      await writeFile(target, payload, { mode: 0o644 });
    },
  };
}
