/**
 * Auth methods of the namespace (`GET /v1/sys/auth`) with what each holds: userpass users
 * (`LIST auth/<mount>/users`), approle, JWT/OIDC and Kubernetes roles (`LIST auth/<mount>/role`).
 */
import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SecretsNav } from './SecretsNav';

interface AuthMount {
  type: string;
  description?: string;
  accessor?: string;
}

/** The list each method type keeps its users or roles under. */
const MEMBERS: Readonly<Record<string, [string, string]>> = {
  userpass: ['users', 'Users'],
  approle: ['role', 'Roles'],
  jwt: ['role', 'Roles'],
  oidc: ['role', 'Roles'],
  kubernetes: ['role', 'Roles'],
};

export function AuthMethods() {
  const q = useQuery({
    queryKey: ['secrets', 'auth'],
    queryFn: async () => {
      const body = await api<{ data: Record<string, AuthMount> }>('secrets', '/v1/sys/auth');
      return Object.entries(body.data).sort(([a], [b]) => a.localeCompare(b));
    },
  });
  return (
    <>
      <SecretsNav />
      <h1>Auth methods</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data?.map(([path, m]) => (
        <section key={path} aria-labelledby={`auth-${m.accessor ?? path}`}>
          <h2 id={`auth-${m.accessor ?? path}`}>
            {path} <span className="muted">({m.type})</span>
          </h2>
          {m.description && <p>{m.description}</p>}
          {MEMBERS[m.type] && <Members path={path} list={MEMBERS[m.type][0]} label={MEMBERS[m.type][1]} />}
        </section>
      ))}
    </>
  );
}

function Members({ path, list, label }: { path: string; list: string; label: string }) {
  const q = useQuery({
    queryKey: ['secrets', 'auth-members', path, list],
    queryFn: async () => {
      try {
        return (await api<{ data: { keys: string[] } }>('secrets', `/v1/auth/${path}${list}?list=true`)).data.keys;
      } catch (err) {
        // None yet: LIST answers 404.
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });
  if (q.error) return <ErrorNotice error={q.error} />;
  if (!q.data) return <Loading />;
  return (
    <>
      <h3>{label}</h3>
      {q.data.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="plain" aria-label={`${label} of ${path}`}>
          {q.data.map((k) => (
            <li key={k}>{k}</li>
          ))}
        </ul>
      )}
    </>
  );
}
