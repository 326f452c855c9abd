/**
 * Gateway scopes: the tree (global → orgs → projects, each under its parent), create
 * (name, description, parent: global makes an org, an org a project) and delete
 * (`DELETE /v1/scopes/{id}`, which takes the scope's contents with it).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { scopeLabel, useScopes, type Scope } from './domain';
import { NameForm } from './NameForm';

/** `scopes` in tree order: each org followed by its projects; `depth` 0 global, 1 org, 2 project. */
function treeOrder(scopes: Scope[]): Array<Scope & { depth: number }> {
  const out: Array<Scope & { depth: number }> = [];
  const walk = (parent: string, depth: number) => {
    for (const s of scopes.filter((x) => x.scope_id === parent && x.id !== parent)) {
      out.push({ ...s, depth });
      walk(s.id, depth + 1);
    }
  };
  out.push({ ...scopes[0], depth: 0 });
  walk('global', 1);
  return out;
}

export function Scopes() {
  const queries = useQueryClient();
  const scopes = useScopes();
  const [parent, setParent] = useState('global');
  const [error, setError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway', 'scopes'] });
  const remove = async (s: Scope) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/scopes/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  const rows = scopes.data ? treeOrder(scopes.data) : [];
  return (
    <>
      <h1>Gateway scopes</h1>
      <ErrorNotice error={scopes.error ?? error} />
      {scopes.isPending && <Loading />}
      <DataTable
        testId="scopes"
        caption="Scopes"
        rows={rows}
        rowKey={(s) => s.id}
        columns={[
          ['Name', (s) => <span style={{ paddingLeft: `${s.depth * 1.5}rem` }}>{s.id === 'global' ? 'Global' : s.name || '(no name)'}</span>],
          ['ID', (s) => <code>{s.id}</code>],
          ['Type', (s) => s.type],
          ['Description', (s) => s.description ?? ''],
          [
            'Actions',
            (s) =>
              s.id !== 'global' && (
                <button type="button" className="danger" onClick={() => void remove(s)} aria-label={`Delete scope ${s.name || s.id}`}>
                  Delete
                </button>
              ),
          ],
        ]}
      />
      <NameForm kind="scopes" noun="scope" scopeId={parent} onMade={refresh}>
        <div className="field">
          <label htmlFor="gw-scope-parent">Parent</label>
          <select id="gw-scope-parent" value={parent} onChange={(e) => setParent(e.target.value)}>
            {rows
              .filter((s) => s.type !== 'project')
              .map((s) => (
                <option key={s.id} value={s.id}>
                  {scopeLabel(s)}
                </option>
              ))}
          </select>
        </div>
      </NameForm>
    </>
  );
}
