/**
 * A job diff (`GET /v1/job/:id/versions?diffs=true`, the reference's `JobDiff`) as a nested
 * list: each changed field as `+`/`-`/`+/-` with its old and new value, nested objects,
 * task groups and tasks, unchanged fields left out. The marker is spelled out for screen
 * readers (`added`, `removed`, `changed`).
 */
interface DiffField {
  Type: string;
  Name: string;
  Old: string;
  New: string;
}

interface DiffObject {
  Type: string;
  Name: string;
  Fields: DiffField[] | null;
  Objects: DiffObject[] | null;
}

export interface JobDiff {
  Type: string;
  ID: string;
  Fields: DiffField[] | null;
  Objects: DiffObject[] | null;
  TaskGroups: Array<DiffObject & { Tasks: DiffObject[] | null }> | null;
}

const MARKS: Record<string, [string, string]> = { Added: ['+', 'added'], Deleted: ['-', 'removed'], Edited: ['+/-', 'changed'] };

function Mark({ type }: { type: string }) {
  const m = MARKS[type];
  if (!m) return null;
  return (
    <>
      <span className={`diff-mark diff-${m[1]}`} aria-hidden="true">
        {m[0]}
      </span>
      <span className="sr-only">{m[1]}</span>{' '}
    </>
  );
}

function FieldLine({ f }: { f: DiffField }) {
  const value = f.Type === 'Added' ? `"${f.New}"` : f.Type === 'Deleted' ? `"${f.Old}"` : `"${f.Old}" => "${f.New}"`;
  return (
    <li>
      <Mark type={f.Type} />
      {f.Name}: <code>{value}</code>
    </li>
  );
}

/** The changed fields and objects of one level. */
function Members({ fields, objects }: { fields: DiffField[] | null; objects: DiffObject[] | null }) {
  const changed = (fields ?? []).filter((f) => f.Type !== 'None');
  const nested = (objects ?? []).filter((o) => o.Type !== 'None');
  if (changed.length === 0 && nested.length === 0) return null;
  return (
    <ul className="diff">
      {changed.map((f) => (
        <FieldLine key={`${f.Name}:${f.Old}:${f.New}`} f={f} />
      ))}
      {nested.map((o, i) => (
        <li key={`${o.Name}-${i}`}>
          <Mark type={o.Type} />
          {o.Name}
          <Members fields={o.Fields} objects={o.Objects} />
        </li>
      ))}
    </ul>
  );
}

/** The whole diff; `None` when nothing changed. */
export function JobDiffView({ diff }: { diff: JobDiff }) {
  if (diff.Type === 'None') return <p className="muted">No change.</p>;
  return (
    <div data-testid="job-diff">
      <Members fields={diff.Fields} objects={diff.Objects} />
      <ul className="diff">
        {(diff.TaskGroups ?? [])
          .filter((g) => g.Type !== 'None')
          .map((g) => (
            <li key={g.Name}>
              <Mark type={g.Type} />
              Task group {g.Name}
              <Members fields={g.Fields} objects={g.Objects} />
              <ul className="diff">
                {(g.Tasks ?? [])
                  .filter((t) => t.Type !== 'None')
                  .map((t) => (
                    <li key={t.Name}>
                      <Mark type={t.Type} />
                      Task {t.Name}
                      <Members fields={t.Fields} objects={t.Objects} />
                    </li>
                  ))}
              </ul>
            </li>
          ))}
      </ul>
    </div>
  );
}
