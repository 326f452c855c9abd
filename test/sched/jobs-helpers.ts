/** Test helpers for the jobs API: a minimal job as the reference's API takes it. */

/** A job `id` of one group `app` with one `raw_exec` task `server` (`/bin/sleep 300`), with `over` merged in. */
export function minimalJob(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ID: id,
    TaskGroups: [{ Name: 'app', Tasks: [{ Name: 'server', Driver: 'raw_exec', Config: { command: '/bin/sleep', args: ['300'] } }] }],
    ...over,
  };
}
