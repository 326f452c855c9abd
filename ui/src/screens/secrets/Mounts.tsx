/** Secrets engines mounted in the namespace (`GET /v1/sys/mounts`); KV mounts open the browser, database, transit and PKI mounts their screens. */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SecretsNav } from './SecretsNav';

interface Mount {
  type: string;
  description?: string;
  options?: { version?: string } | null;
}

export function Mounts() {
  const q = useQuery({
    queryKey: ['secrets', 'mounts'],
    queryFn: async () => {
      const body = await api<{ data?: Record<string, Mount> } & Record<string, unknown>>('secrets', '/v1/sys/mounts');
      return Object.entries(body.data ?? {}).sort(([a], [b]) => a.localeCompare(b));
    },
  });
  return (
    <>
      <SecretsNav />
      <h1>Secrets engines</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && (
        <table>
          <caption className="sr-only">Mounted secrets engines</caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map(([path, m]) => (
              <tr key={path}>
                <td>{mountLink(path, m)}</td>
                <td>
                  {m.type}
                  {m.options?.version ? ` v${m.options.version}` : ''}
                </td>
                <td>{m.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** Engine types with a screen of their own (engines/EngineScreen.tsx). */
const ENGINE_SCREENS = new Set(['database', 'transit', 'pki']);

/** The mount's path, linked to its screen when it has one. */
function mountLink(path: string, m: Mount) {
  const name = encodeURIComponent(path.replace(/\/$/, ''));
  if (m.type === 'kv' && m.options?.version === '2') return <Link to={`/secrets/kv/${name}/`}>{path}</Link>;
  if (ENGINE_SCREENS.has(m.type)) return <Link to={`/secrets/engines/${name}`}>{path}</Link>;
  return path;
}
