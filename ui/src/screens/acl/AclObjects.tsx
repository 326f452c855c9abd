/**
 * ACL objects of the discovery service or the scheduler (kinds.ts says which API): a list
 * per kind (tokens, policies, roles, auth methods, binding rules), an object's detail, a
 * policy's rules in the HCL editor with the server's error shown at its line, the create
 * forms of policies and tokens and the field forms of the other kinds (AclForm.tsx), and
 * delete. Routes: `<base>/<kind>`, `<base>/<kind>/<id>`,
 * `<base>-new/<kind>`.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ComponentType, type FormEvent } from 'react';
import { Link, NavLink, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { policyErrorLine } from '../secrets/policyError';
import { SecretValue } from '../secrets/SecretValue';
import { AclForm } from './AclForm';
import { str, type AclKind, type AclService, type Row } from './kinds';

/** The line a rules error names: the discovery parser's `At <line>:<column>:`, else as the secrets policy errors (policyError.ts). */
function ruleErrorLine(message: string, text: string): number | undefined {
  const at = /\bAt (\d+):\d+:/.exec(message);
  return at ? Number(at[1]) : policyErrorLine(message, text);
}

const CodeEditor = lazy(() => import('../../components/CodeEditor'));

/** The screen of `service` under the section's sub-navigation `Nav`; `creating`: the kind's create form. */
export function AclObjects({ service, Nav, creating = false }: { service: AclService; Nav: ComponentType; creating?: boolean }) {
  const { kind: slug, id } = useParams();
  const kind = service.kinds.find((k) => k.slug === slug);
  return (
    <>
      <Nav />
      <nav aria-label="ACL objects" className="sub">
        {service.kinds.map((k) => (
          <NavLink key={k.slug} to={`${service.base}/${k.slug}`}>
            {k.title}
          </NavLink>
        ))}
      </nav>
      {!kind && <p role="alert">No such kind of ACL object.</p>}
      {kind && creating && kind.create === 'policy' && <PolicyForm service={service} />}
      {kind && creating && kind.create === 'token' && <TokenForm service={service} />}
      {kind && creating && kind.form && <AclForm service={service} kind={kind} form={kind.form} />}
      {kind && !creating && id === undefined && <AclList service={service} kind={kind} />}
      {kind && !creating && id !== undefined && <AclDetail key={id} service={service} kind={kind} id={id} />}
    </>
  );
}

function AclList({ service, kind }: { service: AclService; kind: AclKind }) {
  const q = useQuery({ queryKey: [service.section, 'acl', kind.slug], queryFn: () => api<Row[] | null>(service.section, kind.list).then((r) => r ?? []) });
  return (
    <>
      <div className="toolbar">
        <h1>ACL {kind.title.toLowerCase()}</h1>
        {(kind.create ?? kind.form) && (
          <Link className="button primary" to={`${service.base}-new/${kind.slug}`}>
            Create {kind.create ?? kind.form?.noun}
          </Link>
        )}
      </div>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && q.data.length === 0 && <p>None.</p>}
      {q.data && q.data.length > 0 && (
        <DataTable
          testId={`acl-${kind.slug}`}
          rows={q.data}
          rowKey={kind.idOf}
          columns={kind.columns.map(([label, cell], i) =>
            // The first column links to the object's page.
            i === 0
              ? ([
                  label,
                  (row: Row) => <Link to={`${service.base}/${kind.slug}/${encodeURIComponent(kind.idOf(row))}`}>{cell(row) || kind.idOf(row)}</Link>,
                ] as const)
              : ([label, cell] as const),
          )}
        />
      )}
    </>
  );
}

/** One object: its fields, and for a policy the rules editor. */
function AclDetail({ service, kind, id }: { service: AclService; kind: AclKind; id: string }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const q = useQuery({ queryKey: [service.section, 'acl', kind.slug, id], queryFn: () => api<Row>(service.section, kind.read(id)) });
  const remove = async () => {
    if (!kind.remove || !confirm(`Delete ${kind.title.toLowerCase()} ${id}?`)) return;
    try {
      await api(service.section, kind.remove(id), { method: 'DELETE' });
      // Dropped, not just invalidated: the list must not show the deleted object while it reloads.
      queries.removeQueries({ queryKey: [service.section, 'acl'] });
      navigate(`${service.base}/${kind.slug}`);
    } catch (e) {
      setError(e);
    }
  };
  if (q.isPending) return <Loading />;
  if (q.error) return <ErrorNotice error={q.error} />;
  const row = q.data;
  if (kind.create === 'policy') {
    return (
      <>
        <PolicyForm service={service} existing={row} onDelete={kind.remove ? () => void remove() : undefined} />
        <ErrorNotice error={error} />
      </>
    );
  }
  const shown = Object.entries(row).filter(([, v]) => typeof v !== 'object' || v === null);
  const nested = Object.entries(row).filter(([, v]) => typeof v === 'object' && v !== null);
  return (
    <>
      <h1>
        {kind.title.replace(/s$/, '')} {str(row.Name) || str(row.Description) || id}
      </h1>
      <dl className="facts" aria-label="Fields">
        {shown.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{k === 'SecretID' && v !== '<hidden>' ? <SecretValue name="SecretID" value={v} /> : str(v)}</dd>
          </div>
        ))}
      </dl>
      {nested.length > 0 && (
        <>
          <h2>Details</h2>
          <pre tabIndex={0} aria-label="Nested fields as JSON">
            {JSON.stringify(Object.fromEntries(nested), null, 2)}
          </pre>
        </>
      )}
      <ErrorNotice error={error} />
      {kind.remove && (
        <div className="actions">
          <button type="button" className="danger" onClick={() => void remove()}>
            Delete
          </button>
        </div>
      )}
    </>
  );
}

const DEFAULT_RULES: Record<string, string> = {
  mesh: 'key_prefix "app/" {\n  policy = "read"\n}\n',
  sched: 'namespace "default" {\n  policy = "read"\n}\n',
};

/** Create (no `existing`) or edit a policy; the server's rule error is shown and its line marked. */
function PolicyForm({ service, existing, onDelete }: { service: AclService; existing?: Row; onDelete?: () => void }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const initial = existing ? str(existing.Rules) : (DEFAULT_RULES[service.section] ?? '');
  const [name, setName] = useState(str(existing?.Name));
  const [description, setDescription] = useState(str(existing?.Description));
  const [rules, setRules] = useState(initial);
  const [error, setError] = useState<{ message: string; line?: number }>();
  const [saved, setSaved] = useState(false);
  const id = existing ? str(existing.ID) || str(existing.Name) : undefined;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    const w = service.writePolicy({ id, name: name.trim(), description, rules });
    try {
      const reply = await api<Row | undefined>(service.section, w.path, { method: w.method, body: w.body });
      await queries.invalidateQueries({ queryKey: [service.section, 'acl'] });
      setSaved(true);
      if (!existing) navigate(`${service.base}/policies/${encodeURIComponent(str(reply?.ID) || name.trim())}`);
    } catch (err) {
      const message = (err as Error).message;
      setError({ message, line: ruleErrorLine(message, rules) });
    }
  };
  return (
    <>
      <h1>{existing ? `Policy ${str(existing.Name)}` : 'Create policy'}</h1>
      <form onSubmit={(e) => void save(e)}>
        <div className="field">
          <label htmlFor="acl-policy-name">Name</label>
          <input
            id="acl-policy-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            readOnly={existing !== undefined && service.section === 'sched'}
          />
        </div>
        <div className="field">
          <label htmlFor="acl-policy-description">Description</label>
          <input id="acl-policy-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <Suspense fallback={<p>Loading editor…</p>}>
          <CodeEditor label="Rules (HCL)" language="hcl" value={initial} onChange={setRules} errorLine={error?.line} />
        </Suspense>
        {error && (
          <p role="alert" className="error" data-testid="acl-policy-error">
            {error.line ? `Line ${error.line}: ` : ''}
            {error.message}
          </p>
        )}
        {saved && <p role="status">Saved.</p>}
        <div className="actions">
          <button type="submit" className="primary">
            Save policy
          </button>
          {onDelete && (
            <button type="button" className="danger" onClick={onDelete}>
              Delete policy
            </button>
          )}
        </div>
      </form>
    </>
  );
}

/** Create a token with chosen policies; its secret is shown once. */
function TokenForm({ service }: { service: AclService }) {
  const queries = useQueryClient();
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [made, setMade] = useState<Row>();
  const policies = useQuery({
    queryKey: [service.section, 'acl', 'policies'],
    queryFn: () => api<Row[] | null>(service.section, '/v1/acl/policies').then((r) => r ?? []),
  });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const w = service.createToken({ description, policies: chosen });
    try {
      setMade(await api<Row>(service.section, w.path, { method: w.method, body: w.body }));
      await queries.invalidateQueries({ queryKey: [service.section, 'acl'] });
    } catch (err) {
      setError(err);
    }
  };
  const toggle = (p: string, on: boolean) => setChosen((c) => (on ? [...c, p] : c.filter((x) => x !== p)));
  return (
    <>
      <h1>Create token</h1>
      <form onSubmit={(e) => void save(e)}>
        <div className="field">
          <label htmlFor="acl-token-description">{service.section === 'sched' ? 'Name' : 'Description'}</label>
          <input id="acl-token-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <fieldset>
          <legend>Policies</legend>
          <ErrorNotice error={policies.error} />
          {policies.data?.map((r) => {
            const p = service.policyName(r);
            return (
              <label key={p}>
                <input type="checkbox" checked={chosen.includes(p)} onChange={(e) => toggle(p, e.target.checked)} /> {p}
              </label>
            );
          })}
        </fieldset>
        <ErrorNotice error={error} />
        <div className="actions">
          <button type="submit" className="primary">
            Create token
          </button>
        </div>
      </form>
      {made && (
        <section aria-labelledby="token-made" role="status">
          <h2 id="token-made">Token created</h2>
          <p>Copy the secret now: the list does not show it.</p>
          <dl className="facts">
            <div>
              <dt>Accessor</dt>
              <dd>
                <code data-testid="acl-token-accessor">{str(made.AccessorID)}</code>
              </dd>
            </div>
            <div>
              <dt>Secret</dt>
              <dd>
                <SecretValue name="SecretID" value={str(made.SecretID)} />
              </dd>
            </div>
          </dl>
          <Link to={`${service.base}/tokens/${encodeURIComponent(str(made.AccessorID))}`}>Open the token</Link>
        </section>
      )}
    </>
  );
}
