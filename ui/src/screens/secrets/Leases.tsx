/**
 * Leases of the namespace: browsed by prefix (`LIST /v1/sys/leases/lookup/:prefix`, sudo;
 * virtualised, as a mount may hold many), one looked up (`PUT /v1/sys/leases/lookup`),
 * renewed by an increment (`PUT /v1/sys/leases/renew`), revoked (`PUT /v1/sys/leases/revoke`)
 * or every lease under the prefix revoked (`PUT /v1/sys/leases/revoke-prefix/:prefix`), both
 * after a confirmation.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { VirtualList } from '../../components/VirtualList';
import { encodePath } from './kvPaths';
import { SecretsNav } from './SecretsNav';

interface Lease {
  id: string;
  issue_time: string;
  expire_time: string | null;
  last_renewal: string | null;
  renewable: boolean;
  ttl: number;
}

/** The keys under `prefix`; none (the API's 404) is an empty list. */
async function listLeases(prefix: string): Promise<string[]> {
  try {
    const path = prefix === '' ? '/v1/sys/leases/lookup' : `/v1/sys/leases/lookup/${encodePath(prefix.replace(/\/$/, ''))}`;
    return (await api<{ data: { keys: string[] } }>('secrets', `${path}?list=true`)).data.keys;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  }
}

const when = (t: string | null) => (t ? new Date(t).toLocaleString() : '—');

export function Leases() {
  const queries = useQueryClient();
  const [prefix, setPrefix] = useState('');
  const [typed, setTyped] = useState('');
  const [leaseId, setLeaseId] = useState('');
  const [lease, setLease] = useState<Lease>();
  const [increment, setIncrement] = useState('1h');
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const keys = useQuery({ queryKey: ['secrets', 'leases', prefix], queryFn: () => listLeases(prefix) });

  const browse = (p: string) => {
    setPrefix(p);
    setTyped(p);
  };
  /** Runs `step`, showing its error; the list is reloaded after it. */
  const run = async (step: () => Promise<void>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await step();
    } catch (err) {
      setError(err);
    }
    await queries.invalidateQueries({ queryKey: ['secrets', 'leases'] });
  };
  const lookup = (id: string) =>
    run(async () => {
      setLeaseId(id);
      setLease(undefined);
      setLease((await api<{ data: Lease }>('secrets', '/v1/sys/leases/lookup', { method: 'PUT', body: { lease_id: id } })).data);
    });
  const renew = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const r = await api<{ lease_duration: number; warnings?: string[] | null }>('secrets', '/v1/sys/leases/renew', {
        method: 'PUT',
        body: { lease_id: lease!.id, increment },
      });
      // The lease as it is now, shown together with the notice.
      setLease((await api<{ data: Lease }>('secrets', '/v1/sys/leases/lookup', { method: 'PUT', body: { lease_id: lease!.id } })).data);
      setNotice(`Renewed: the lease now has ${r.lease_duration} s left.${r.warnings?.length ? ` ${r.warnings.join(' ')}` : ''}`);
    });
  };
  const revoke = () => {
    if (!lease || !confirm(`Revoke the lease ${lease.id}? What it grants stops working.`)) return;
    void run(async () => {
      await api('secrets', '/v1/sys/leases/revoke', { method: 'PUT', body: { lease_id: lease.id } });
      setNotice(`Revoked the lease ${lease.id}.`);
      setLease(undefined);
    });
  };
  const revokePrefix = () => {
    if (!prefix || !confirm(`Revoke every lease under ${prefix}?`)) return;
    void run(async () => {
      await api('secrets', `/v1/sys/leases/revoke-prefix/${encodePath(prefix.replace(/\/$/, ''))}`, { method: 'PUT' });
      setNotice(`Revoked every lease under ${prefix}.`);
      setLease(undefined);
    });
  };

  const up = prefix.replace(/[^/]*\/$/, '');
  return (
    <>
      <SecretsNav />
      <h1>Leases</h1>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          browse(typed.trim() === '' || typed.trim().endsWith('/') ? typed.trim() : `${typed.trim()}/`);
        }}
      >
        <div className="field inline">
          <label htmlFor="lease-prefix">Prefix</label>
          <input id="lease-prefix" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="e.g. secret/" size={30} />
        </div>
        <button type="submit">Browse</button>
        {prefix && (
          <button type="button" onClick={() => browse(up)}>
            Up one level
          </button>
        )}
        {prefix && (
          <button type="button" className="danger" onClick={revokePrefix}>
            Revoke all under prefix
          </button>
        )}
      </form>
      <ErrorNotice error={keys.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      {keys.isPending && <Loading />}
      {keys.data && keys.data.length === 0 && <p>No leases under {prefix || 'the top level'}.</p>}
      {keys.data && keys.data.length > 0 && (
        <div className="short-vlist">
          <VirtualList
            items={keys.data}
            label={`Leases under ${prefix || 'the top level'}`}
            render={(k) =>
              k.endsWith('/') ? (
                <button type="button" className="link" onClick={() => browse(prefix + k)}>
                  {k}
                </button>
              ) : (
                <button type="button" className="link" aria-label={`Look up lease ${prefix + k}`} onClick={() => void lookup(prefix + k)}>
                  {k}
                </button>
              )
            }
          />
        </div>
      )}
      <h2>Look up a lease</h2>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void lookup(leaseId.trim());
        }}
      >
        <div className="field inline">
          <label htmlFor="lease-id">Lease ID</label>
          <input id="lease-id" value={leaseId} onChange={(e) => setLeaseId(e.target.value)} required size={50} />
        </div>
        <button type="submit">Look up</button>
      </form>
      {lease && (
        <section aria-labelledby="lease-h">
          <h2 id="lease-h">Lease {lease.id}</h2>
          <dl className="facts" data-testid="lease">
            <div>
              <dt>Issued</dt>
              <dd>{when(lease.issue_time)}</dd>
            </div>
            <div>
              <dt>Last renewed</dt>
              <dd>{when(lease.last_renewal)}</dd>
            </div>
            <div>
              <dt>Expires</dt>
              <dd>{when(lease.expire_time)}</dd>
            </div>
            <div>
              <dt>Time left</dt>
              <dd data-testid="lease-ttl">{lease.ttl} s</dd>
            </div>
            <div>
              <dt>Renewable</dt>
              <dd>{lease.renewable ? 'yes' : 'no'}</dd>
            </div>
          </dl>
          <form className="toolbar" onSubmit={renew}>
            <div className="field inline">
              <label htmlFor="lease-increment">Increment (seconds or a duration)</label>
              <input id="lease-increment" value={increment} onChange={(e) => setIncrement(e.target.value)} size={8} />
            </div>
            <button type="submit" className="primary" disabled={!lease.renewable}>
              Renew
            </button>
            <button type="button" className="danger" onClick={revoke}>
              Revoke
            </button>
          </form>
        </section>
      )}
    </>
  );
}
