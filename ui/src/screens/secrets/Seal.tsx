/** Seal status and HA status, with the unseal form (`/v1/sys/seal-status`, `/v1/sys/unseal`, `/v1/sys/leader`). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SecretsNav } from './SecretsNav';
import type { SysLeader as Leader } from '../../api/secrets-sys';

interface SealStatus {
  initialized: boolean;
  sealed: boolean;
  t: number;
  n: number;
  progress: number;
  version: string;
  storage_type?: string;
}

export function Seal() {
  const queries = useQueryClient();
  const status = useQuery({ queryKey: ['secrets', 'seal'], queryFn: () => api<SealStatus>('secrets', '/v1/sys/seal-status'), refetchInterval: 5000 });
  const leader = useQuery({ queryKey: ['secrets', 'leader'], queryFn: () => api<Leader>('secrets', '/v1/sys/leader'), retry: false });
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['secrets'] });

  const unseal = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api('secrets', '/v1/sys/unseal', { method: 'PUT', body: { key: key.trim() } });
      await refresh();
    } catch (err) {
      setError(err);
    } finally {
      setKey('');
    }
  };
  const seal = async () => {
    if (!confirm('Seal the secrets service? Every request fails until it is unsealed with its keys.')) return;
    setError(undefined);
    try {
      await api('secrets', '/v1/sys/seal', { method: 'PUT' });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };

  const s = status.data;
  return (
    <>
      <SecretsNav />
      <h1>Seal status</h1>
      {status.isPending && <Loading />}
      <ErrorNotice error={status.error ?? error} />
      {s && (
        <>
          <dl className="facts">
            <div>
              <dt>State</dt>
              <dd data-testid="seal-state">{!s.initialized ? 'not initialised' : s.sealed ? 'sealed' : 'unsealed'}</dd>
            </div>
            <div>
              <dt>Key shares / threshold</dt>
              <dd>
                {s.n} / {s.t}
              </dd>
            </div>
            {s.sealed && (
              <div>
                <dt>Unseal progress</dt>
                <dd>
                  {s.progress} of {s.t}
                </dd>
              </div>
            )}
            <div>
              <dt>Version</dt>
              <dd>{s.version}</dd>
            </div>
            {leader.data && (
              <div>
                <dt>High availability</dt>
                <dd>
                  {!leader.data.ha_enabled
                    ? 'not enabled (single server)'
                    : leader.data.is_self
                      ? 'this server is active'
                      : `standby; active server: ${leader.data.leader_address || 'unknown'}`}
                </dd>
              </div>
            )}
          </dl>
          {s.sealed ? (
            <form onSubmit={(e) => void unseal(e)} aria-label="Unseal">
              <div className="field">
                <label htmlFor="unseal-key">Unseal key share</label>
                <input id="unseal-key" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
              </div>
              <button type="submit" className="primary">
                Unseal
              </button>
            </form>
          ) : (
            <button type="button" className="danger" onClick={() => void seal()}>
              Seal
            </button>
          )}
        </>
      )}
    </>
  );
}
