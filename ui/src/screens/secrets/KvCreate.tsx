/** A new KV v2 secret in a folder: its name and first version (`cas = 0`: never overwrites). */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Breadcrumbs } from './Breadcrumbs';
import { explainCas, writeSecret, type SecretData } from './kvApi';
import { KvEditor } from './KvEditor';
import { kvRoute } from './kvPaths';
import { SecretsNav } from './SecretsNav';

export function KvCreate() {
  const { mount = '', '*': folder = '' } = useParams();
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const save = async (d: SecretData) => {
    const rel = name.trim().replace(/^\/+|\/+$/g, '');
    if (!rel) return setError('Give the secret a path.');
    try {
      await writeSecret(mount, folder + rel, d, 0);
      await queries.invalidateQueries({ queryKey: ['secrets'] });
      navigate(kvRoute(mount, folder + rel));
    } catch (err) {
      setError(explainCas(err) ? `A secret already exists at ${folder + rel}.` : (err as Error).message);
    }
  };
  return (
    <>
      <SecretsNav />
      <Breadcrumbs mount={mount} path={folder} />
      <h2>Create secret</h2>
      <div className="field">
        <label htmlFor="secret-path">
          Path of the secret (under {mount}/{folder})
        </label>
        <input id="secret-path" value={name} onChange={(e) => setName(e.target.value)} required />
      </div>
      <KvEditor initial={{}} submitLabel="Save" onSave={(d) => void save(d)} />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}
