/**
 * A task's templates and workload identities on the allocation screen (issue 27 scope 8):
 * each template's destination, state (waiting on what, rendered, stale with its source's
 * error) and last change; each identity's expiry. The client reports them in the task's
 * state (Cairn's extension of `TaskState`); their content never leaves the client.
 */
import { DataTable } from '../../components/DataTable';
import type { TemplateState } from './jobTypes';

/** An RFC 3339 time as a local date and time, or `never`. */
const when = (t: string | null) => (t ? new Date(t).toLocaleString() : 'never');

/** The state in words; colour alone never carries it. */
function stateText(t: TemplateState): string {
  if (t.State === 'waiting') return `waiting on ${t.Missing.join(', ') || 'its first render'}`;
  if (t.State === 'stale') return `stale: ${t.Error ?? `cannot reach ${t.Missing.join(', ')}`} (keeps its last render)`;
  return 'rendered';
}

/** The two tables of task `task`; nothing when it has neither templates nor identities. */
export function TaskTemplates({
  task,
  templates,
  identities,
}: {
  task: string;
  templates?: TemplateState[];
  identities?: Array<{ Name: string; Expiration: string | null; FetchedAt: string }>;
}) {
  return (
    <>
      {(templates ?? []).length > 0 && (
        <DataTable
          testId={`task-templates-${task}`}
          caption={`Templates of task ${task}`}
          rows={templates!}
          rowKey={(t) => t.DestPath}
          columns={[
            ['Destination', (t) => t.DestPath],
            [
              'State',
              (t) => (
                <span
                  className={`status status-${t.State === 'rendered' ? 'passing' : t.State === 'waiting' ? 'warning' : 'critical'}`}
                  data-testid={`template-state-${task}-${t.DestPath}`}
                >
                  {stateText(t)}
                </span>
              ),
            ],
            ['Last rendered', (t) => when(t.LastRendered)],
          ]}
        />
      )}
      {(identities ?? []).length > 0 && (
        <DataTable
          testId={`task-identities-${task}`}
          caption={`Workload identities of task ${task}`}
          rows={identities!}
          rowKey={(i) => i.Name}
          columns={[
            ['Identity', (i) => i.Name],
            ['Expires', (i) => when(i.Expiration)],
            ['Fetched', (i) => when(i.FetchedAt)],
          ]}
        />
      )}
    </>
  );
}
