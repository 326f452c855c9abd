/** A policy in the HCL editor; the server's parse error is shown and its line marked. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { policyErrorLine } from './policyError';
import { SecretsNav } from './SecretsNav';

const CodeEditor = lazy(() => import('../../components/CodeEditor'));

export function PolicyEdit() {
  const { name } = useParams();
  const q = useQuery({
    queryKey: ['secrets', 'policy', name],
    queryFn: () => api<{ data: { policy: string } }>('secrets', `/v1/sys/policies/acl/${encodeURIComponent(name!)}`).then((r) => r.data.policy),
    enabled: name !== undefined,
  });
  if (name !== undefined && q.isPending) return <Loading />;
  if (q.error) return <ErrorNotice error={q.error} />;
  return <PolicyForm key={name ?? ''} name={name} initial={q.data ?? 'path "secret/data/*" {\n  capabilities = ["read"]\n}\n'} />;
}

function PolicyForm({ name, initial }: { name?: string; initial: string }) {
  const [newName, setNewName] = useState('');
  const [text, setText] = useState(initial);
  const [error, setError] = useState<{ message: string; line?: number }>();
  const [saved, setSaved] = useState(false);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    const target = name ?? newName.trim();
    try {
      await api('secrets', `/v1/sys/policies/acl/${encodeURIComponent(target)}`, { method: 'PUT', body: { policy: text } });
      await queries.invalidateQueries({ queryKey: ['secrets'] });
      setSaved(true);
      if (!name) navigate(`/secrets/policies/${encodeURIComponent(target)}`);
    } catch (err) {
      const message = (err as Error).message;
      setError({ message, line: policyErrorLine(message, text) });
    }
  };
  const remove = async () => {
    if (!name || !confirm(`Delete policy ${name}?`)) return;
    try {
      await api('secrets', `/v1/sys/policies/acl/${encodeURIComponent(name)}`, { method: 'DELETE' });
      await queries.invalidateQueries({ queryKey: ['secrets'] });
      navigate('/secrets/policies');
    } catch (err) {
      setError({ message: (err as Error).message });
    }
  };
  return (
    <>
      <SecretsNav />
      <h1>{name ? `Policy ${name}` : 'Create policy'}</h1>
      <form onSubmit={(e) => void save(e)}>
        {!name && (
          <div className="field">
            <label htmlFor="policy-name">Name</label>
            <input id="policy-name" value={newName} onChange={(e) => setNewName(e.target.value)} required />
          </div>
        )}
        <Suspense fallback={<p>Loading editor…</p>}>
          <CodeEditor label={`Policy ${name ?? ''} (HCL)`} language="hcl" value={initial} onChange={setText} errorLine={error?.line} />
        </Suspense>
        {error && (
          <p role="alert" className="error" data-testid="policy-error">
            {error.line ? `Line ${error.line}: ` : ''}
            {error.message}
          </p>
        )}
        {saved && <p role="status">Saved.</p>}
        <div className="actions">
          <button type="submit" className="primary">
            Save
          </button>
          {name && name !== 'root' && name !== 'default' && (
            <button type="button" className="danger" onClick={() => void remove()}>
              Delete
            </button>
          )}
        </div>
      </form>
    </>
  );
}
