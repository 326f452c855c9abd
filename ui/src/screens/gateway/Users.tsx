/**
 * Gateway users of a chosen scope (`?scope=`, default global): list, create (name,
 * description), delete. A user's ID is what a role's principals take.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { useItems, type Item } from './domain';
import { NameForm } from './NameForm';
import { ScopePicker, useChosenScope } from './ScopePicker';

export function Users() {
  const queries = useQueryClient();
  const [scopeId, setScopeId] = useChosenScope();
  const users = useItems('users', scopeId);
  const [error, setError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway', 'users'] });
  const remove = async (u: Item) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/users/${encodeURIComponent(u.id)}`, { method: 'DELETE' });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>Gateway users</h1>
      <ScopePicker value={scopeId} onChange={setScopeId} />
      <ErrorNotice error={users.error ?? error} />
      {users.isPending && <Loading />}
      <DataTable
        testId="users"
        caption="Users"
        rows={users.data ?? []}
        rowKey={(u) => u.id}
        columns={[
          ['Name', (u) => u.name ?? ''],
          ['ID', (u) => <code>{u.id}</code>],
          ['Description', (u) => u.description ?? ''],
          [
            'Actions',
            (u) => (
              <button type="button" className="danger" onClick={() => void remove(u)} aria-label={`Delete user ${u.name || u.id}`}>
                Delete
              </button>
            ),
          ],
        ]}
      />
      <NameForm kind="users" noun="user" scopeId={scopeId} onMade={refresh} />
    </>
  );
}
