/**
 * The discovery key/value store: folders from `GET /v1/kv/<prefix>?keys&separator=/`, a key
 * read with `GET /v1/kv/<key>` (its base64 value shown as text), written with
 * `PUT /v1/kv/<key>?flags=&cas=` and deleted with `DELETE /v1/kv/<key>?cas=`. A `cas` write
 * the server refuses (`false`: the key changed since that index) is explained, with the
 * key's current index. A held lock shows its session (`GET /v1/session/info/<id>`).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { MeshNav } from './MeshNav';

interface KvEntry {
  Key: string;
  Flags: number;
  Value: string | null;
  LockIndex: number;
  Session?: string;
  CreateIndex: number;
  ModifyIndex: number;
}

/** The key's path in the API, each segment escaped (a key may hold any character but `/` separates folders). */
const kvPath = (key: string) => `/v1/kv/${key.split('/').map(encodeURIComponent).join('/')}`;

/** A base64 value as UTF-8 text. */
function decodeValue(v: string | null): string {
  if (v === null) return '';
  return new TextDecoder().decode(Uint8Array.from(atob(v), (c) => c.charCodeAt(0)));
}

/** `/discovery/kv/<prefix>/` is a folder; anything else a key. */
export function Kv() {
  const key = useParams()['*'] ?? '';
  return key === '' || key.endsWith('/') ? <KvFolder prefix={key} /> : <KvKey key={key} name={key} />;
}

function Crumbs({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  return (
    <nav aria-label="Key path" className="crumbs">
      <Link to="/discovery/kv/">Key/value</Link>
      {parts.map((p, i) => (
        <span key={i}>
          {' / '}
          {i < parts.length - 1 || path.endsWith('/') ? <Link to={`/discovery/kv/${parts.slice(0, i + 1).join('/')}/`}>{p}</Link> : p}
        </span>
      ))}
    </nav>
  );
}

function KvFolder({ prefix }: { prefix: string }) {
  const navigate = useNavigate();
  const [newKey, setNewKey] = useState('');
  const q = useQuery({
    queryKey: ['mesh', 'kv-keys', prefix],
    queryFn: async () => {
      try {
        return await api<string[]>('mesh', `${kvPath(prefix)}?keys&separator=/`);
      } catch (e) {
        // A prefix with no keys is a 404: an empty folder.
        if (e instanceof ApiError && e.status === 404) return [];
        throw e;
      }
    },
  });
  const create = (e: FormEvent) => {
    e.preventDefault();
    const k = newKey.trim().replace(/^\/+/, '');
    if (k) navigate(`/discovery/kv/${prefix}${k}${k.endsWith('/') ? '' : '?new'}`);
  };
  return (
    <>
      <MeshNav />
      <h1>Key/value store</h1>
      <Crumbs path={prefix} />
      <form className="toolbar" onSubmit={create}>
        <div className="field inline">
          <label htmlFor="kv-new">New key under {prefix || '/'}</label>
          <input id="kv-new" value={newKey} onChange={(e) => setNewKey(e.target.value)} placeholder="name or folder/name" />
        </div>
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && q.data.length === 0 && <p>No keys here.</p>}
      {q.data && q.data.length > 0 && (
        <ul className="plain" aria-label={`Keys under ${prefix || '/'}`} data-testid="kv-keys">
          {q.data.map((k) => (
            <li key={k}>
              <Link to={`/discovery/kv/${k}`}>{k.slice(prefix.length)}</Link>
              {k.endsWith('/') && <span className="muted"> (folder)</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** A write's outcome, kept here: a saved write re-reads the key, which remounts the form at the new index. */
interface Outcome {
  ok: boolean;
  text: string;
}

function KvKey({ name }: { name: string }) {
  const [result, setResult] = useState<Outcome>();
  const isNew = new URLSearchParams(location.search).has('new');
  const q = useQuery({
    queryKey: ['mesh', 'kv', name],
    queryFn: async () => {
      try {
        return (await api<KvEntry[]>('mesh', kvPath(name)))[0];
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    },
  });
  return (
    <>
      <MeshNav />
      <h1>Key {name}</h1>
      <Crumbs path={name} />
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data === null && !isNew && <p role="status">This key does not exist (yet): saving creates it.</p>}
      {q.data !== undefined && <KvForm key={q.data?.ModifyIndex ?? 0} name={name} entry={q.data} result={result} setResult={setResult} />}
    </>
  );
}

/** The edit form; `cas` starts at the index the value was read at. */
function KvForm({ name, entry, result, setResult }: { name: string; entry: KvEntry | null; result?: Outcome; setResult: (o?: Outcome) => void }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [value, setValue] = useState(decodeValue(entry?.Value ?? null));
  const [flags, setFlags] = useState(String(entry?.Flags ?? 0));
  const [cas, setCas] = useState(String(entry?.ModifyIndex ?? 0));
  const [useCas, setUseCas] = useState(true);
  const [error, setError] = useState<unknown>();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setResult(undefined);
    setError(undefined);
    const qs = new URLSearchParams({ flags });
    if (useCas) qs.set('cas', cas);
    try {
      const ok = await api<boolean>('mesh', `${kvPath(name)}?${qs}`, { method: 'PUT', raw: value });
      if (ok) {
        setResult({ ok: true, text: 'Saved.' });
        await queries.invalidateQueries({ queryKey: ['mesh'] });
      } else {
        const now = (await api<KvEntry[]>('mesh', kvPath(name)).catch(() => []))[0];
        setResult({
          ok: false,
          text:
            cas === '0'
              ? 'Not saved: check-and-set index 0 writes only a key that does not exist, and this key exists now.'
              : `Not saved: the key changed since index ${cas} (its index is now ${now?.ModifyIndex ?? 'gone: it was deleted'}). Someone else wrote it; reload it to see their value before you save again.`,
        });
      }
    } catch (err) {
      setError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete key ${name}?`)) return;
    setError(undefined);
    try {
      const ok = await api<boolean>('mesh', `${kvPath(name)}${useCas ? `?cas=${encodeURIComponent(cas)}` : ''}`, { method: 'DELETE' });
      if (!ok) {
        setResult({ ok: false, text: `Not deleted: the key changed since index ${cas}. Reload it first.` });
        return;
      }
      // Dropped, not just invalidated: the folder must not show the deleted key while it reloads.
      queries.removeQueries({ queryKey: ['mesh', 'kv-keys'] });
      queries.removeQueries({ queryKey: ['mesh', 'kv', name] });
      navigate(`/discovery/kv/${name.slice(0, name.lastIndexOf('/') + 1)}`);
    } catch (err) {
      setError(err);
    }
  };
  const reload = () => {
    setResult(undefined);
    void queries.invalidateQueries({ queryKey: ['mesh', 'kv', name] });
  };
  return (
    <form onSubmit={(e) => void save(e)}>
      {entry && (
        <dl className="facts" aria-label="Key facts">
          <div>
            <dt>Modify index</dt>
            <dd data-testid="kv-index">{entry.ModifyIndex}</dd>
          </div>
          <div>
            <dt>Create index</dt>
            <dd>{entry.CreateIndex}</dd>
          </div>
          <div>
            <dt>Lock</dt>
            <dd>{entry.Session ? <LockSession id={entry.Session} lockIndex={entry.LockIndex} /> : `not held (lock index ${entry.LockIndex})`}</dd>
          </div>
        </dl>
      )}
      <div className="field">
        <label htmlFor="kv-value">Value</label>
        <textarea id="kv-value" rows={8} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} />
      </div>
      <div className="field inline">
        <label htmlFor="kv-flags">Flags</label>
        <input id="kv-flags" type="number" min={0} value={flags} onChange={(e) => setFlags(e.target.value)} />
      </div>
      <div className="field inline">
        <label htmlFor="kv-use-cas">
          <input id="kv-use-cas" type="checkbox" checked={useCas} onChange={(e) => setUseCas(e.target.checked)} /> Check-and-set
        </label>
        <label htmlFor="kv-cas">Index (cas)</label>
        <input id="kv-cas" type="number" min={0} value={cas} disabled={!useCas} onChange={(e) => setCas(e.target.value)} aria-describedby="kv-cas-help" />
        <span id="kv-cas-help" className="muted">
          saves only if the key is still at this index (0: only if it does not exist)
        </span>
      </div>
      {result && (
        <p role={result.ok ? 'status' : 'alert'} className={result.ok ? undefined : 'error'} data-testid="kv-result">
          {result.text}
        </p>
      )}
      <ErrorNotice error={error} />
      <div className="actions">
        <button type="submit" className="primary">
          Save
        </button>
        <button type="button" onClick={reload}>
          Reload
        </button>
        {entry && (
          <button type="button" className="danger" onClick={() => void remove()}>
            Delete
          </button>
        )}
      </div>
    </form>
  );
}

interface SessionInfo {
  ID: string;
  Name: string;
  Node: string;
  Behavior: string;
  TTL: string;
}

function LockSession({ id, lockIndex }: { id: string; lockIndex: number }) {
  const q = useQuery({ queryKey: ['mesh', 'session', id], queryFn: () => api<SessionInfo[] | null>('mesh', `/v1/session/info/${encodeURIComponent(id)}`) });
  const s = q.data?.[0];
  return (
    <span data-testid="kv-lock">
      held by session <code>{id}</code> (lock index {lockIndex})
      {s && ` — ${s.Name || 'unnamed'} on node ${s.Node}, ${s.Behavior}${s.TTL ? `, TTL ${s.TTL}` : ''}`}
    </span>
  );
}
