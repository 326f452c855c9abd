/**
 * The create form shared by scopes, users and roles: name, description and (scopes) the
 * parent, posted as `{scope_id, name, description}`; the server's refusal shown under it.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';

/**
 * `kind`: the collection (`scopes`, `users`, `roles`, `host-catalogs`); `noun`: what the
 * button creates; `extra`: more fields of the create body (a catalog's `type`); `onMade`:
 * after the write.
 */
export function NameForm({
  kind,
  noun,
  scopeId,
  extra,
  onMade,
  children,
}: {
  kind: string;
  noun: string;
  scopeId: string;
  extra?: Record<string, unknown>;
  onMade: () => Promise<void>;
  children?: ReactNode;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await api('gateway', `/v1/${kind}`, {
        method: 'POST',
        body: { ...extra, scope_id: scopeId, name: name.trim(), description: description.trim() || undefined },
      });
      setName('');
      setDescription('');
      await onMade();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="narrow" onSubmit={(e) => void save(e)} aria-label={`Create ${noun}`}>
      <h2>Create {noun}</h2>
      {children}
      <div className="field">
        <label htmlFor={`gw-${kind}-name`}>Name</label>
        <input id={`gw-${kind}-name`} value={name} onChange={(e) => setName(e.target.value)} required />
      </div>
      <div className="field">
        <label htmlFor={`gw-${kind}-description`}>Description</label>
        <input id={`gw-${kind}-description`} value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <ErrorNotice error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create {noun}
        </button>
      </div>
    </form>
  );
}
