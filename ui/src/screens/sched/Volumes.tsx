/**
 * Scheduler CSI volumes a page at a time (`GET /v1/volumes?type=csi&per_page=&next_token=`,
 * the next page's token from `X-Sched-NextToken`; earlier pages' tokens are kept for
 * Previous), so 100,000 volumes are never loaded at once; a `filter` in the bexpr syntax
 * (a bad one's 400 shown as the server words it); a volume's detail
 * (`GET /v1/volume/csi/<id>?namespace=`).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, apiReply } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SchedNav } from './SchedNav';

interface VolumeStub {
  ID: string;
  Name: string;
  Namespace: string;
  PluginID: string;
  Schedulable: boolean;
  AccessMode: string;
  CurrentReaders: number;
  CurrentWriters: number;
}

const PAGE_SIZES = ['25', '50', '100'];

export function Volumes() {
  const [perPage, setPerPage] = useState('25');
  const [draft, setDraft] = useState('');
  const [filter, setFilter] = useState('');
  /** Tokens of the pages shown so far; the last is the current page's ('' = first). */
  const [tokens, setTokens] = useState<string[]>(['']);
  const token = tokens[tokens.length - 1];
  const q = useQuery({
    queryKey: ['sched', 'volumes', perPage, filter, token],
    queryFn: async () => {
      const qs = new URLSearchParams({ type: 'csi', per_page: perPage });
      if (token) qs.set('next_token', token);
      if (filter) qs.set('filter', filter);
      const r = await apiReply<VolumeStub[]>('sched', `/v1/volumes?${qs}`);
      return { volumes: r.body, next: r.headers.get('X-Sched-NextToken') ?? '' };
    },
    placeholderData: keepPreviousData,
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilter(draft.trim());
    setTokens(['']);
  };
  const data = q.error ? undefined : q.data;
  return (
    <>
      <SchedNav />
      <h1>CSI volumes</h1>
      <form className="toolbar" onSubmit={apply} aria-label="Volume filter">
        <div className="field inline">
          <label htmlFor="vol-filter">Filter (bexpr)</label>
          <input
            id="vol-filter"
            size={48}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder='Parameters.tier == "gold"'
            aria-describedby="vol-filter-help"
          />
        </div>
        <button type="submit">Apply</button>
        <div className="field inline">
          <label htmlFor="vol-per-page">Per page</label>
          <select
            id="vol-per-page"
            value={perPage}
            onChange={(e) => {
              setPerPage(e.target.value);
              setTokens(['']);
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </div>
      </form>
      <p id="vol-filter-help" className="muted">
        e.g. <code>ID contains "042"</code>, <code>Parameters.tier == "gold" and Schedulable</code>
      </p>
      <ErrorNotice error={q.error} />
      {q.isPending && <Loading />}
      {data && data.volumes.length === 0 && <p>No volumes{filter ? ' match the filter' : ''}.</p>}
      {data && data.volumes.length > 0 && (
        <table data-testid="volumes">
          <caption>
            Page {tokens.length}
            {filter ? `, filtered by ${filter}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Volume</th>
              <th scope="col">Name</th>
              <th scope="col">Namespace</th>
              <th scope="col">Plugin</th>
              <th scope="col">Schedulable</th>
              <th scope="col">Access mode</th>
              <th scope="col">Claims (read/write)</th>
            </tr>
          </thead>
          <tbody>
            {data.volumes.map((v) => (
              <tr key={`${v.Namespace}/${v.ID}`}>
                <td>
                  <Link to={`/scheduler/volumes/${encodeURIComponent(v.ID)}?namespace=${encodeURIComponent(v.Namespace)}`}>{v.ID}</Link>
                </td>
                <td>{v.Name}</td>
                <td>{v.Namespace}</td>
                <td>{v.PluginID}</td>
                <td>{v.Schedulable ? 'yes' : 'no'}</td>
                <td>{v.AccessMode || '—'}</td>
                <td>
                  {v.CurrentReaders}/{v.CurrentWriters}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <button type="button" disabled={tokens.length < 2} onClick={() => setTokens((t) => t.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" disabled={!data?.next || q.isFetching} onClick={() => setTokens((t) => [...t, data!.next])}>
          Next page
        </button>
      </div>
    </>
  );
}

interface Volume extends VolumeStub {
  ExternalID: string;
  Provider: string;
  Capacity: number;
  Parameters: Record<string, string> | null;
  RequestedCapabilities: Array<{ AccessMode: string; AttachmentMode: string }> | null;
  Topologies: unknown;
  ReadAllocs: Record<string, unknown>;
  WriteAllocs: Record<string, unknown>;
  ControllersHealthy: number;
  NodesHealthy: number;
}

export function VolumeDetail() {
  const id = useParams().id!;
  const [search] = useSearchParams();
  const ns = search.get('namespace') ?? 'default';
  const q = useQuery({
    queryKey: ['sched', 'volume', ns, id],
    queryFn: () => api<Volume>('sched', `/v1/volume/csi/${encodeURIComponent(id)}?namespace=${encodeURIComponent(ns)}`),
  });
  const v = q.data;
  const facts: Array<[string, string]> = v
    ? [
        ['Name', v.Name],
        ['Namespace', v.Namespace],
        ['External ID', v.ExternalID],
        ['Plugin', `${v.PluginID} (${v.Provider})`],
        ['Schedulable', v.Schedulable ? 'yes' : 'no'],
        ['Capacity (bytes)', String(v.Capacity)],
        ['Capabilities', (v.RequestedCapabilities ?? []).map((c) => `${c.AccessMode} / ${c.AttachmentMode}`).join(', ')],
        [
          'Parameters',
          Object.entries(v.Parameters ?? {})
            .map(([k, x]) => `${k}=${x}`)
            .join(', '),
        ],
        ['Read claims', Object.keys(v.ReadAllocs ?? {}).join(', ') || 'none'],
        ['Write claims', Object.keys(v.WriteAllocs ?? {}).join(', ') || 'none'],
      ]
    : [];
  return (
    <>
      <SchedNav />
      <h1>CSI volume {id}</h1>
      <p>
        <Link to="/scheduler/volumes">All volumes</Link>
      </p>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {v && (
        <dl className="facts" aria-label="Volume" data-testid="volume">
          {facts.map(([k, x]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{x}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}
