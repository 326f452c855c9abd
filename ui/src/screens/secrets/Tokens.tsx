/**
 * The signed-in token (`GET /v1/auth/token/lookup-self`), creating a child token
 * (`POST /v1/auth/token/create`, shown once, hidden until revealed) and revoking a token by
 * its accessor (`POST /v1/auth/token/revoke-accessor`).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SecretValue } from './SecretValue';
import { SecretsNav } from './SecretsNav';

interface TokenInfo {
  accessor: string;
  display_name: string;
  policies: string[];
  ttl: number;
  expire_time: string | null;
  renewable: boolean;
}

export function Tokens() {
  const self = useQuery({
    queryKey: ['secrets', 'token-self'],
    queryFn: () => api<{ data: TokenInfo }>('secrets', '/v1/auth/token/lookup-self').then((r) => r.data),
  });
  const [policies, setPolicies] = useState('default');
  const [ttl, setTtl] = useState('1h');
  const [created, setCreated] = useState<{ token: string; accessor: string }>();
  const [accessor, setAccessor] = useState('');
  const [revoked, setRevoked] = useState<string>();
  const [error, setError] = useState<unknown>();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const list = policies
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const r = await api<{ auth: { client_token: string; accessor: string } }>('secrets', '/v1/auth/token/create', {
        method: 'POST',
        body: { policies: list, ttl },
      });
      setCreated({ token: r.auth.client_token, accessor: r.auth.accessor });
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api('secrets', '/v1/auth/token/revoke-accessor', { method: 'POST', body: { accessor: accessor.trim() } });
      setRevoked(accessor.trim());
      setAccessor('');
    } catch (err) {
      setError(err);
    }
  };

  const t = self.data;
  return (
    <>
      <SecretsNav />
      <h1>Tokens</h1>
      {self.isPending && <Loading />}
      <ErrorNotice error={self.error ?? error} />
      {t && (
        <dl className="facts" aria-label="Your token">
          <div>
            <dt>Display name</dt>
            <dd>{t.display_name}</dd>
          </div>
          <div>
            <dt>Accessor</dt>
            <dd>
              <code>{t.accessor}</code>
            </dd>
          </div>
          <div>
            <dt>Policies</dt>
            <dd>{t.policies.join(', ')}</dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>{t.expire_time ? new Date(t.expire_time).toLocaleString() : 'never'}</dd>
          </div>
        </dl>
      )}
      <h2>Create a token</h2>
      <form className="toolbar" onSubmit={(e) => void create(e)}>
        <div className="field inline">
          <label htmlFor="tk-policies">Policies (comma-separated)</label>
          <input id="tk-policies" value={policies} onChange={(e) => setPolicies(e.target.value)} />
        </div>
        <div className="field inline">
          <label htmlFor="tk-ttl">TTL</label>
          <input id="tk-ttl" value={ttl} onChange={(e) => setTtl(e.target.value)} size={6} />
        </div>
        <button type="submit" className="primary">
          Create token
        </button>
      </form>
      {created && (
        <p role="status">
          New token (shown once): <SecretValue name="new token" value={created.token} /> accessor <code data-testid="new-accessor">{created.accessor}</code>
        </p>
      )}
      <h2>Revoke a token</h2>
      <form className="toolbar" onSubmit={(e) => void revoke(e)}>
        <div className="field inline">
          <label htmlFor="tk-accessor">Accessor</label>
          <input id="tk-accessor" value={accessor} onChange={(e) => setAccessor(e.target.value)} required size={30} />
        </div>
        <button type="submit" className="danger">
          Revoke
        </button>
      </form>
      {revoked && <p role="status">Revoked the token with accessor {revoked}.</p>}
    </>
  );
}
