/** ACL policies of the namespace (`LIST /v1/sys/policies/acl`). */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SecretsNav } from './SecretsNav';

export function Policies() {
  const q = useQuery({
    queryKey: ['secrets', 'policies'],
    queryFn: () => api<{ data: { keys: string[] } }>('secrets', '/v1/sys/policies/acl?list=true').then((r) => r.data.keys),
  });
  return (
    <>
      <SecretsNav />
      <div className="toolbar">
        <h1>ACL policies</h1>
        <Link className="button primary" to="/secrets/policy-new">
          Create policy
        </Link>
      </div>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && (
        <ul className="plain" aria-label="Policies">
          {q.data.map((name) => (
            <li key={name}>
              <Link to={`/secrets/policies/${encodeURIComponent(name)}`}>{name}</Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
