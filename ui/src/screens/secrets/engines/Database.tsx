/**
 * A database engine (reference/secrets-engines.md §5): its connections (configure with the
 * PostgreSQL plugin, reset, rotate the root credentials, delete), its roles (create, issue
 * credentials, see and revoke their leases) and its static roles (rotate now).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../../api/client';
import { DataTable } from '../../../components/DataTable';
import { ErrorNotice } from '../../../components/Notice';
import { SecretValue } from '../SecretValue';
import { commaList, engineCall, useAction, useKeys } from './engineApi';
import { encodePath } from '../kvPaths';

/** The reference's canonical creation statement (secrets-engines.md §5). */
const CREATION = `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO "{{name}}";`;

interface Issued {
  readonly role: string;
  readonly username: string;
  readonly password: string;
  readonly leaseId: string;
  readonly ttl: number;
}

export function Database({ mount }: { mount: string }) {
  const connections = useKeys(mount, 'config');
  const roles = useKeys(mount, 'roles');
  const statics = useKeys(mount, 'static-roles');
  const { error, notice, run } = useAction();
  const [issued, setIssued] = useState<Issued>();
  const [leasesOf, setLeasesOf] = useState<string>();

  const issue = (role: string) =>
    run(async () => {
      const r = await api<{ lease_id: string; lease_duration: number; data: { username: string; password: string } }>(
        'secrets',
        `/v1/${encodeURIComponent(mount)}/creds/${encodeURIComponent(role)}`,
      );
      setIssued({ role, username: r.data.username, password: r.data.password, leaseId: r.lease_id, ttl: r.lease_duration });
      setLeasesOf(role);
      return `Issued credentials of role ${role}.`;
    });

  return (
    <>
      <h1>Database engine {mount}/</h1>
      <ErrorNotice error={connections.error ?? roles.error ?? statics.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      <h2>Connections</h2>
      <DataTable
        testId="db-connections"
        caption="Connections"
        rows={connections.data ?? []}
        rowKey={(n) => n}
        columns={[
          ['Name', (n) => n],
          ['Details', (n) => <ConnectionDetails mount={mount} name={n} />],
          [
            'Actions',
            (n) => (
              <>
                <button type="button" onClick={() => void run(async () => (await engineCall(mount, `reset/${n}`, { method: 'POST' }), `Reset ${n}.`))}>
                  Reset
                </button>
                <button
                  type="button"
                  aria-label={`Rotate root credentials of ${n}`}
                  onClick={() =>
                    confirm(`Rotate the root password of ${n}? Only the secrets service will know the new one.`) &&
                    void run(async () => (await engineCall(mount, `rotate-root/${n}`, { method: 'POST' }), `Rotated the root credentials of ${n}.`))
                  }
                >
                  Rotate root
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Delete connection ${n}`}
                  onClick={() => void run(async () => (await engineCall(mount, `config/${n}`, { method: 'DELETE' }), `Deleted connection ${n}.`))}
                >
                  Delete
                </button>
              </>
            ),
          ],
        ]}
      />
      <ConnectionForm mount={mount} run={run} />
      <h2>Roles</h2>
      <DataTable
        testId="db-roles"
        caption="Roles"
        rows={roles.data ?? []}
        rowKey={(n) => n}
        columns={[
          ['Name', (n) => n],
          [
            'Actions',
            (n) => (
              <>
                <button type="button" className="primary" aria-label={`Issue credentials of ${n}`} onClick={() => void issue(n)}>
                  Issue credentials
                </button>
                <button type="button" aria-label={`Leases of ${n}`} onClick={() => setLeasesOf(n)}>
                  Leases
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Delete role ${n}`}
                  onClick={() => void run(async () => (await engineCall(mount, `roles/${n}`, { method: 'DELETE' }), `Deleted role ${n}.`))}
                >
                  Delete
                </button>
              </>
            ),
          ],
        ]}
      />
      {issued && (
        <section aria-labelledby="db-issued">
          <h3 id="db-issued">Credentials of {issued.role}</h3>
          <dl className="facts" data-testid="db-issued">
            <div>
              <dt>Username</dt>
              <dd>
                <code>{issued.username}</code>
              </dd>
            </div>
            <div>
              <dt>Password</dt>
              <dd>
                <SecretValue name="password" value={issued.password} />
              </dd>
            </div>
            <div>
              <dt>Lease</dt>
              <dd>
                <code>{issued.leaseId}</code> ({issued.ttl} s)
              </dd>
            </div>
          </dl>
        </section>
      )}
      {leasesOf && <RoleLeases mount={mount} role={leasesOf} run={run} />}
      <RoleForm mount={mount} connections={connections.data ?? []} run={run} />
      <h2>Static roles</h2>
      <DataTable
        testId="db-static-roles"
        caption="Static roles"
        rows={statics.data ?? []}
        rowKey={(n) => n}
        columns={[
          ['Name', (n) => n],
          [
            'Actions',
            (n) => (
              <button
                type="button"
                aria-label={`Rotate static role ${n}`}
                onClick={() => void run(async () => (await engineCall(mount, `rotate-role/${n}`, { method: 'POST' }), `Rotated the password of ${n}.`))}
              >
                Rotate now
              </button>
            ),
          ],
        ]}
      />
    </>
  );
}

type Run = ReturnType<typeof useAction>['run'];

/** One connection's plugin, URL and allowed roles (`GET config/:name`; the password is never shown by the service). */
function ConnectionDetails({ mount, name }: { mount: string; name: string }) {
  const q = useQuery({
    queryKey: ['secrets', 'engine', mount, 'config', name],
    queryFn: () =>
      engineCall<{ plugin_name: string; allowed_roles?: string[]; connection_details?: { connection_url?: string; username?: string } }>(
        mount,
        `config/${name}`,
      ),
  });
  if (!q.data) return <ErrorNotice error={q.error} />;
  const d = q.data;
  return (
    <span>
      {d.plugin_name} · <code>{d.connection_details?.connection_url}</code> · user {d.connection_details?.username ?? '—'} · roles{' '}
      {(d.allowed_roles ?? []).join(', ') || 'none'}
    </span>
  );
}

/** `POST config/:name` with the PostgreSQL plugin. */
function ConnectionForm({ mount, run }: { mount: string; run: Run }) {
  const [f, setF] = useState({
    name: '',
    url: 'postgresql://{{username}}:{{password}}@localhost:5432/postgres',
    username: '',
    password: '',
    roles: '*',
    verify: true,
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string; checked?: boolean } }) =>
    setF({ ...f, [k]: k === 'verify' ? Boolean(e.target.checked) : e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await engineCall(mount, `config/${f.name}`, {
        method: 'POST',
        body: {
          plugin_name: 'postgresql-database-plugin',
          connection_url: f.url,
          username: f.username,
          password: f.password,
          allowed_roles: commaList(f.roles),
          verify_connection: f.verify,
        },
      });
      return `Configured connection ${f.name}.`;
    });
  };
  return (
    <form onSubmit={submit} aria-label="Configure a connection">
      <h3>Configure a connection (PostgreSQL)</h3>
      <div className="field">
        <label htmlFor="db-name">Connection name</label>
        <input id="db-name" value={f.name} onChange={set('name')} required />
      </div>
      <div className="field">
        <label htmlFor="db-url">Connection URL</label>
        <input id="db-url" value={f.url} onChange={set('url')} required size={60} />
      </div>
      <div className="field">
        <label htmlFor="db-user">Username</label>
        <input id="db-user" value={f.username} onChange={set('username')} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="db-password">Password</label>
        <input id="db-password" type="password" value={f.password} onChange={set('password')} autoComplete="new-password" />
      </div>
      <div className="field">
        <label htmlFor="db-roles">Allowed roles (comma-separated, * = any)</label>
        <input id="db-roles" value={f.roles} onChange={set('roles')} />
      </div>
      <div className="field inline">
        <input id="db-verify" type="checkbox" checked={f.verify} onChange={set('verify')} />
        <label htmlFor="db-verify">Verify the connection</label>
      </div>
      <button type="submit" className="primary">
        Save connection
      </button>
    </form>
  );
}

/** `POST roles/:name`. */
function RoleForm({ mount, connections, run }: { mount: string; connections: readonly string[]; run: Run }) {
  const [f, setF] = useState({ name: '', db: '', creation: CREATION, revocation: '', ttl: '1h', maxTtl: '24h' });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await engineCall(mount, `roles/${f.name}`, {
        method: 'POST',
        body: {
          db_name: f.db || connections[0],
          creation_statements: [f.creation],
          ...(f.revocation.trim() ? { revocation_statements: [f.revocation] } : {}),
          default_ttl: f.ttl,
          max_ttl: f.maxTtl,
        },
      });
      return `Saved role ${f.name}.`;
    });
  };
  return (
    <form onSubmit={submit} aria-label="Create a role">
      <h3>Create a role</h3>
      <div className="field">
        <label htmlFor="role-name">Role name</label>
        <input id="role-name" value={f.name} onChange={set('name')} required />
      </div>
      <div className="field">
        <label htmlFor="role-db">Connection</label>
        <select id="role-db" value={f.db || connections[0] || ''} onChange={set('db')}>
          {connections.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="role-creation">Creation statements</label>
        <textarea id="role-creation" value={f.creation} onChange={set('creation')} rows={3} cols={70} required />
      </div>
      <div className="field">
        <label htmlFor="role-revocation">Revocation statements (empty: the default)</label>
        <textarea id="role-revocation" value={f.revocation} onChange={set('revocation')} rows={2} cols={70} />
      </div>
      <div className="field inline">
        <label htmlFor="role-ttl">Default TTL</label>
        <input id="role-ttl" value={f.ttl} onChange={set('ttl')} size={6} />
        <label htmlFor="role-max-ttl">Max TTL</label>
        <input id="role-max-ttl" value={f.maxTtl} onChange={set('maxTtl')} size={6} />
      </div>
      <button type="submit" className="primary">
        Save role
      </button>
    </form>
  );
}

/** The leases of a role's credentials (`LIST sys/leases/lookup/<mount>/creds/<role>/`), each revocable. */
function RoleLeases({ mount, role, run }: { mount: string; role: string; run: Run }) {
  const prefix = `${mount}/creds/${role}/`;
  const q = useQuery({
    queryKey: ['secrets', 'engine', mount, 'leases', role],
    queryFn: async () => {
      try {
        return (await api<{ data: { keys: string[] } }>('secrets', `/v1/sys/leases/lookup/${encodePath(prefix.slice(0, -1))}?list=true`)).data.keys;
      } catch (err) {
        // None left: LIST answers 404.
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });
  return (
    <section aria-labelledby="db-leases">
      <h3 id="db-leases">Leases of {role}</h3>
      <ErrorNotice error={q.error} />
      {(q.data ?? []).length === 0 ? (
        <p className="muted">No leases.</p>
      ) : (
        <ul className="plain" aria-label={`Leases of ${role}`}>
          {q.data!.map((k) => (
            <li key={k}>
              <code>{prefix + k}</code>{' '}
              <button
                type="button"
                className="danger"
                aria-label={`Revoke lease ${k}`}
                onClick={() =>
                  void run(async () => {
                    await api('secrets', '/v1/sys/leases/revoke', { method: 'PUT', body: { lease_id: prefix + k } });
                    return `Revoked ${prefix + k}; the database user is dropped.`;
                  })
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
