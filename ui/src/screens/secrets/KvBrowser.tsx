/** A KV v2 folder: its keys from `LIST <mount>/metadata/<folder>`, searchable, virtualised. */
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { VirtualList } from '../../components/VirtualList';
import { Breadcrumbs } from './Breadcrumbs';
import { encodePath, kvApi, kvRoute } from './kvPaths';
import { SecretsNav } from './SecretsNav';

export function KvBrowser() {
  const { mount = '', '*': folder = '' } = useParams();
  const [search, setSearch] = useState('');
  const q = useQuery({
    queryKey: ['secrets', 'kv-list', mount, folder],
    queryFn: async () => {
      try {
        const res = await api<{ data: { keys: string[] } }>('secrets', `${kvApi(mount, 'metadata', folder)}?list=true`);
        return res.data.keys;
      } catch (err) {
        // An empty folder does not exist: LIST answers 404.
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });
  const shown = useMemo(() => {
    const s = search.trim().toLowerCase();
    return s ? (q.data ?? []).filter((k) => k.toLowerCase().includes(s)) : (q.data ?? []);
  }, [q.data, search]);

  return (
    <>
      <SecretsNav />
      <Breadcrumbs mount={mount} path={folder} />
      <div className="toolbar">
        <div className="field inline">
          <label htmlFor="kv-search">Search this folder</label>
          <input id="kv-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <Link className="button primary" to={`/secrets/create/${encodeURIComponent(mount)}/${encodePath(folder)}`}>
          Create secret
        </Link>
      </div>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && (
        <>
          <p data-testid="kv-count" aria-live="polite">
            {shown.length === q.data.length ? `${q.data.length} keys` : `${shown.length} of ${q.data.length} keys`}
          </p>
          {q.data.length === 0 ? (
            <p>This folder is empty.</p>
          ) : (
            <VirtualList
              items={shown}
              label={`Keys in ${mount}/${folder}`}
              render={(key) => (
                <Link to={kvRoute(mount, folder + key)} className={key.endsWith('/') ? 'folder' : 'secret'}>
                  {key}
                </Link>
              )}
            />
          )}
        </>
      )}
    </>
  );
}
