/** A secret's versions with view, delete, undelete and destroy. */
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../../components/Notice';
import { versionAction, type SecretMeta } from './kvApi';

export function KvVersions({ mount, path, meta, shown, onChanged }: { mount: string; path: string; meta: SecretMeta; shown: number; onChanged: () => void }) {
  const [error, setError] = useState<unknown>();
  const act = async (action: 'delete' | 'undelete' | 'destroy', v: number) => {
    if (action === 'destroy' && !confirm(`Destroy version ${v} for good? Its data cannot be recovered.`)) return;
    setError(undefined);
    try {
      await versionAction(mount, path, action, v);
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  const versions = Object.entries(meta.versions)
    .map(([n, m]) => ({ n: Number(n), ...m }))
    .sort((a, b) => b.n - a.n);
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      <ErrorNotice error={error} />
      <table className="buttons-row">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => {
            const state = v.destroyed ? 'destroyed' : v.deletion_time ? 'deleted' : 'active';
            return (
              <tr key={v.n} aria-current={v.n === shown ? 'true' : undefined}>
                <td>
                  <Link to={`?version=${v.n}`}>Version {v.n}</Link>
                </td>
                <td>{new Date(v.created_time).toLocaleString()}</td>
                <td>{state}</td>
                <td>
                  {/* The buttons' flex row is inside the cell: a flex <td> leaves the table's grid and shifts the row. */}
                  <div className="actions cell-actions">
                    {state === 'active' && (
                      <button type="button" onClick={() => void act('delete', v.n)} aria-label={`Delete version ${v.n}`}>
                        Delete
                      </button>
                    )}
                    {state === 'deleted' && (
                      <button type="button" onClick={() => void act('undelete', v.n)} aria-label={`Undelete version ${v.n}`}>
                        Undelete
                      </button>
                    )}
                    {state !== 'destroyed' && (
                      <button type="button" className="danger" onClick={() => void act('destroy', v.n)} aria-label={`Destroy version ${v.n}`}>
                        Destroy
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
