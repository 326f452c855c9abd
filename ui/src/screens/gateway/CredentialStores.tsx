/**
 * Gateway credential stores of a chosen project (`?project=`, default the first one):
 * each store with its type, its secrets service address and token status (vault) and
 * what it holds — its credential libraries (vault: path, credential type) or its static
 * credentials; create a store (vault: address and token, the token sent once and never
 * shown again; static), a library of a vault store, a username/password credential of a
 * static store; delete a store (with its contents) or a library or credential.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { scopeLabel, useScopes } from './domain';

/** A credential store as listed. */
interface Store {
  id: string;
  name?: string;
  description?: string;
  type: 'vault' | 'static';
  version: number;
  attributes: { address?: string; namespace?: string; token_status?: string };
}

/** A library or static credential as listed. */
interface Held {
  id: string;
  name?: string;
  type: string;
  credential_type?: string;
  attributes: { path?: string; username?: string };
}

const heldPath = (s: Store) => (s.type === 'vault' ? 'credential-libraries' : 'credentials');

function useStores(projectId: string) {
  return useQuery({
    queryKey: ['gateway', 'credential-stores', projectId],
    enabled: projectId !== '',
    queryFn: () => api<{ items?: Store[] }>('gateway', `/v1/credential-stores?scope_id=${encodeURIComponent(projectId)}`).then((r) => r.items ?? []),
  });
}

/** The libraries or credentials of `store`, each deletable. */
function Contents({ store, onError }: { store: Store; onError: (err: unknown) => void }) {
  const queries = useQueryClient();
  const kind = heldPath(store);
  const held = useQuery({
    queryKey: ['gateway', 'credential-stores', 'held', store.id],
    queryFn: () => api<{ items?: Held[] }>('gateway', `/v1/${kind}?credential_store_id=${encodeURIComponent(store.id)}`).then((r) => r.items ?? []),
  });
  const remove = async (h: Held) => {
    onError(undefined);
    try {
      await api('gateway', `/v1/${kind}/${encodeURIComponent(h.id)}`, { method: 'DELETE' });
      await queries.invalidateQueries({ queryKey: ['gateway', 'credential-stores', 'held', store.id] });
    } catch (err) {
      onError(err);
    }
  };
  if (held.isPending) return <Loading />;
  if (held.error) return <ErrorNotice error={held.error} />;
  if (held.data.length === 0) return <span className="muted">{store.type === 'vault' ? 'No libraries' : 'No credentials'}</span>;
  return (
    <ul className="plain" data-testid={`held-${store.id}`}>
      {held.data.map((h) => (
        <li key={h.id}>
          {h.name || h.id} <code>{h.id}</code> {h.attributes.path ?? h.attributes.username ?? ''} {h.credential_type ? `(${h.credential_type})` : ''}{' '}
          <button
            type="button"
            className="danger"
            onClick={() => void remove(h)}
            aria-label={`Delete ${store.type === 'vault' ? 'library' : 'credential'} ${h.name || h.id}`}
          >
            Delete
          </button>
        </li>
      ))}
    </ul>
  );
}

/** A create form: posts `body(the form's fields)` to `/v1/{path}`, shows the server's refusal. */
function CreateForm({
  label,
  path,
  body,
  onMade,
  children,
  ready = true,
}: {
  label: string;
  path: string;
  body: (form: FormData) => unknown;
  onMade: () => Promise<void>;
  children: ReactNode;
  ready?: boolean;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const save = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setError(undefined);
    setBusy(true);
    try {
      await api('gateway', `/v1/${path}`, { method: 'POST', body: body(new FormData(form)) });
      form.reset();
      await onMade();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="narrow" onSubmit={(e) => void save(e)} aria-label={label}>
      <h2>{label}</h2>
      {children}
      <ErrorNotice error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !ready}>
          {label}
        </button>
      </div>
    </form>
  );
}

/** A labelled text input whose value is read from the form on submit. */
function Field({
  id,
  label,
  type = 'text',
  required = false,
  autoComplete,
}: {
  id: string;
  label: string;
  type?: string;
  required?: boolean;
  autoComplete?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={id} type={type} required={required} autoComplete={autoComplete} />
    </div>
  );
}

/** A labelled choice among `stores`, read from the form on submit as `id`. */
function StoreSelect({ id, label, stores }: { id: string; label: string; stores: readonly Store[] }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={id}>
        {stores.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name || s.id}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Field `name` of a submitted form, trimmed. */
const value = (f: FormData, name: string) => String(f.get(name) ?? '').trim();
const optional = (v: string) => (v === '' ? undefined : v);

export function CredentialStores() {
  const queries = useQueryClient();
  const scopes = useScopes();
  const projects = (scopes.data ?? []).filter((s) => s.type === 'project');
  const [params, setParams] = useSearchParams();
  const projectId = params.get('project') || projects[0]?.id || '';
  const stores = useStores(projectId);
  const [storeType, setStoreType] = useState<'vault' | 'static'>('vault');
  const [error, setError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway', 'credential-stores'] });
  const remove = async (s: Store) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/credential-stores/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  const vaultStores = (stores.data ?? []).filter((s) => s.type === 'vault');
  const staticStores = (stores.data ?? []).filter((s) => s.type === 'static');
  return (
    <>
      <h1>Gateway credential stores</h1>
      <div className="field inline">
        <label htmlFor="gw-cs-project">Project</label>
        <select id="gw-cs-project" value={projectId} onChange={(e) => setParams({ project: e.target.value })}>
          {projects.map((s) => (
            <option key={s.id} value={s.id}>
              {scopeLabel(s)}
            </option>
          ))}
        </select>
      </div>
      {scopes.data && projects.length === 0 && <p>No project scope yet: credential stores live in projects.</p>}
      <ErrorNotice error={scopes.error ?? stores.error ?? error} />
      {stores.isFetching && stores.isPending && <Loading />}
      {stores.data?.length === 0 && <p className="muted">No credential stores in this project yet.</p>}
      <DataTable
        testId="credential-stores"
        caption="Credential stores"
        rows={stores.data ?? []}
        rowKey={(s) => s.id}
        columns={[
          ['Name', (s) => s.name ?? ''],
          ['ID', (s) => <code>{s.id}</code>],
          ['Type', (s) => s.type],
          ['Secrets service', (s) => (s.type === 'vault' ? `${s.attributes.address ?? ''} (token ${s.attributes.token_status ?? 'unknown'})` : '')],
          ['Libraries and credentials', (s) => <Contents store={s} onError={setError} />],
          [
            'Actions',
            (s) => (
              <button type="button" className="danger" onClick={() => void remove(s)} aria-label={`Delete credential store ${s.name || s.id}`}>
                Delete
              </button>
            ),
          ],
        ]}
      />
      <CreateForm
        label="Create credential store"
        path="credential-stores"
        onMade={refresh}
        ready={projectId !== ''}
        body={(f) => ({
          scope_id: projectId,
          type: storeType,
          name: optional(value(f, 'gw-cs-name')),
          description: optional(value(f, 'gw-cs-description')),
          ...(storeType === 'vault'
            ? { attributes: { address: value(f, 'gw-cs-address'), token: value(f, 'gw-cs-token'), namespace: optional(value(f, 'gw-cs-namespace')) } }
            : {}),
        })}
      >
        <div className="field">
          <label htmlFor="gw-cs-type">Type</label>
          <select id="gw-cs-type" value={storeType} onChange={(e) => setStoreType(e.target.value as 'vault' | 'static')}>
            <option value="vault">vault (a Cairn secrets service)</option>
            <option value="static">static</option>
          </select>
        </div>
        <Field id="gw-cs-name" label="Name" />
        <Field id="gw-cs-description" label="Description" />
        {storeType === 'vault' && (
          <>
            <Field id="gw-cs-address" label="Secrets service address" type="url" required />
            <Field id="gw-cs-token" label="Token (periodic, renewable, orphan)" type="password" required autoComplete="off" />
            <Field id="gw-cs-namespace" label="Namespace" />
          </>
        )}
      </CreateForm>
      {vaultStores.length > 0 && (
        <CreateForm
          label="Create credential library"
          path="credential-libraries"
          onMade={refresh}
          body={(f) => ({
            credential_store_id: value(f, 'gw-cl-store'),
            type: 'vault-generic',
            name: optional(value(f, 'gw-cl-name')),
            credential_type: optional(value(f, 'gw-cl-type')),
            attributes: { path: value(f, 'gw-cl-path') },
          })}
        >
          <StoreSelect id="gw-cl-store" label="Vault store" stores={vaultStores} />
          <Field id="gw-cl-name" label="Library name" />
          <Field id="gw-cl-path" label="Path" required />
          <div className="field">
            <label htmlFor="gw-cl-type">Credential type</label>
            <select id="gw-cl-type" name="gw-cl-type" defaultValue="">
              <option value="">none (the secret as it is)</option>
              <option value="username_password">username_password</option>
              <option value="ssh_private_key">ssh_private_key</option>
            </select>
          </div>
        </CreateForm>
      )}
      {staticStores.length > 0 && (
        <CreateForm
          label="Create username and password credential"
          path="credentials"
          onMade={refresh}
          body={(f) => ({
            credential_store_id: value(f, 'gw-cr-store'),
            type: 'username_password',
            name: optional(value(f, 'gw-cr-name')),
            attributes: { username: value(f, 'gw-cr-username'), password: value(f, 'gw-cr-password') },
          })}
        >
          <StoreSelect id="gw-cr-store" label="Static store" stores={staticStores} />
          <Field id="gw-cr-name" label="Credential name" />
          <Field id="gw-cr-username" label="Username" required />
          <Field id="gw-cr-password" label="Password" type="password" required autoComplete="new-password" />
        </CreateForm>
      )}
    </>
  );
}
