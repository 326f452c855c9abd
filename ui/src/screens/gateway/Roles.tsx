/**
 * Gateway roles of a chosen scope (`?scope=`): list, create, delete; a role's page shows
 * its principals and grants, adds a principal (`POST /v1/roles/{id}:add-principals`) and
 * sets the grants, one grant string per line (`:set-grants`; each string is parsed by the
 * server, whose refusal names the string and the problem). Both carry the role's version.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { useItems, type Item } from './domain';
import { NameForm } from './NameForm';
import { ScopePicker, useChosenScope } from './ScopePicker';

interface Role extends Item {
  principal_ids?: string[];
  grant_strings?: string[];
  grant_scope_ids?: string[];
}

export function Roles() {
  const queries = useQueryClient();
  const [scopeId, setScopeId] = useChosenScope();
  const roles = useItems<Role>('roles', scopeId);
  const [error, setError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway', 'roles'] });
  const remove = async (r: Role) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/roles/${encodeURIComponent(r.id)}`, { method: 'DELETE' });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>Gateway roles</h1>
      <ScopePicker value={scopeId} onChange={setScopeId} />
      <ErrorNotice error={roles.error ?? error} />
      {roles.isPending && <Loading />}
      <DataTable
        testId="roles"
        caption="Roles"
        rows={roles.data ?? []}
        rowKey={(r) => r.id}
        columns={[
          ['Name', (r) => <Link to={`/gateway/roles/${encodeURIComponent(r.id)}`}>{r.name || r.id}</Link>],
          ['ID', (r) => <code>{r.id}</code>],
          ['Principals', (r) => (r.principal_ids ?? []).length],
          ['Grants', (r) => (r.grant_strings ?? []).length],
          [
            'Actions',
            (r) => (
              <button type="button" className="danger" onClick={() => void remove(r)} aria-label={`Delete role ${r.name || r.id}`}>
                Delete
              </button>
            ),
          ],
        ]}
      />
      <NameForm kind="roles" noun="role" scopeId={scopeId} onMade={refresh} />
    </>
  );
}

export function RoleDetail() {
  const { id = '' } = useParams();
  const queries = useQueryClient();
  const role = useQuery({ queryKey: ['gateway', 'role', id], queryFn: () => api<Role>('gateway', `/v1/roles/${encodeURIComponent(id)}`) });
  const [principal, setPrincipal] = useState('');
  const [grants, setGrants] = useState('');
  const [principalError, setPrincipalError] = useState<unknown>();
  const [grantError, setGrantError] = useState<unknown>();
  const loaded = role.data?.version;
  // The grants box starts from the role's grants each time a new version is read.
  useEffect(() => {
    if (role.data) setGrants((role.data.grant_strings ?? []).join('\n'));
  }, [loaded]); // eslint-disable-line react-hooks/exhaustive-deps -- reset on a new version only, not on each refetch

  /** Posts `action` with the role's version; the role is read again after. */
  const act = async (action: string, body: Record<string, unknown>, setError: (e: unknown) => void) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/roles/${encodeURIComponent(id)}:${action}`, { method: 'POST', body: { version: role.data!.version, ...body } });
      await queries.invalidateQueries({ queryKey: ['gateway'] });
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  const addPrincipal = async (e: FormEvent) => {
    e.preventDefault();
    if (await act('add-principals', { principal_ids: [principal.trim()] }, setPrincipalError)) setPrincipal('');
  };
  const setGrantStrings = async (e: FormEvent) => {
    e.preventDefault();
    const lines = grants
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    await act('set-grants', { grant_strings: lines }, setGrantError);
  };

  if (role.isPending) return <Loading />;
  if (!role.data) return <ErrorNotice error={role.error} />;
  const r = role.data;
  return (
    <>
      <h1>Role {r.name || r.id}</h1>
      <p>
        <code>{r.id}</code> in scope <code>{r.scope_id}</code>, version {r.version}.{' '}
        <Link to={`/gateway/roles?scope=${encodeURIComponent(r.scope_id)}`}>All roles of this scope</Link>
      </p>
      <section aria-labelledby="principals-h">
        <h2 id="principals-h">Principals</h2>
        <ul data-testid="principals">
          {(r.principal_ids ?? []).map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
        <form className="narrow" onSubmit={(e) => void addPrincipal(e)} aria-label="Add principal">
          <div className="field">
            <label htmlFor="gw-principal">User ID</label>
            <input id="gw-principal" value={principal} onChange={(e) => setPrincipal(e.target.value)} required />
          </div>
          <ErrorNotice error={principalError} />
          <button type="submit" className="primary">
            Add principal
          </button>
        </form>
      </section>
      <section aria-labelledby="grants-h">
        <h2 id="grants-h">Grants</h2>
        <ul data-testid="grants">
          {(r.grant_strings ?? []).map((g) => (
            <li key={g}>
              <code>{g}</code>
            </li>
          ))}
        </ul>
        <form className="narrow" onSubmit={(e) => void setGrantStrings(e)} aria-label="Set grants">
          <div className="field">
            <label htmlFor="gw-grants">Grant strings</label>
            <textarea
              id="gw-grants"
              className="mono"
              rows={5}
              spellCheck={false}
              value={grants}
              onChange={(e) => setGrants(e.target.value)}
              aria-describedby="gw-grants-hint"
            />
            <span id="gw-grants-hint" className="muted">
              One grant per line, e.g. <code>ids=*;type=group;actions=list,read</code>. Replaces all the role&apos;s grants.
            </span>
          </div>
          <ErrorNotice error={grantError} />
          <button type="submit" className="primary">
            Set grants
          </button>
        </form>
      </section>
    </>
  );
}
