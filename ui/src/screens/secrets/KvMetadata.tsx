/**
 * A KV v2 secret's settings and custom metadata, shown and edited in place
 * (`POST /v1/<mount>/metadata/<path>`, reference/secrets.md §2.8: `max_versions`,
 * `cas_required`, `delete_version_after`, `custom_metadata`, which the write replaces as a
 * whole). The server's refusal (a bad duration, too many or too long custom keys) is shown.
 */
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import type { SecretMeta } from './kvApi';
import { kvApi } from './kvPaths';

interface Row {
  id: number;
  key: string;
  value: string;
}

let nextId = 1;

export function KvMetadata({ mount, path, meta, onChanged }: { mount: string; path: string; meta: SecretMeta; onChanged: () => Promise<unknown> }) {
  const [editing, setEditing] = useState(false);
  const custom = Object.entries(meta.custom_metadata ?? {});
  return (
    <section aria-labelledby="meta-h">
      <div className="toolbar">
        <h2 id="meta-h">Metadata</h2>
        {!editing && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit metadata
          </button>
        )}
      </div>
      {editing ? (
        <MetadataForm mount={mount} path={path} meta={meta} onDone={() => setEditing(false)} onChanged={onChanged} />
      ) : (
        <div data-testid="kv-metadata">
          <dl className="facts">
            <div>
              <dt>Versions kept</dt>
              <dd>{meta.max_versions === 0 ? 'mount default' : meta.max_versions}</dd>
            </div>
            <div>
              <dt>Check-and-set required</dt>
              <dd>{meta.cas_required ? 'yes' : 'no'}</dd>
            </div>
            <div>
              <dt>Delete versions after</dt>
              <dd>{meta.delete_version_after === '0s' ? 'never' : meta.delete_version_after}</dd>
            </div>
          </dl>
          <h3>Custom metadata</h3>
          {custom.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <dl className="facts" aria-label="Custom metadata">
              {custom.map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          )}
        </div>
      )}
    </section>
  );
}

function MetadataForm({
  mount,
  path,
  meta,
  onDone,
  onChanged,
}: {
  mount: string;
  path: string;
  meta: SecretMeta;
  onDone: () => void;
  onChanged: () => Promise<unknown>;
}) {
  const [maxVersions, setMaxVersions] = useState(String(meta.max_versions));
  const [cas, setCas] = useState(meta.cas_required);
  const [deleteAfter, setDeleteAfter] = useState(meta.delete_version_after);
  const [rows, setRows] = useState<Row[]>(() => Object.entries(meta.custom_metadata ?? {}).map(([key, value]) => ({ id: nextId++, key, value })));
  const [error, setError] = useState<unknown>();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const n = Number(maxVersions);
    if (!Number.isInteger(n) || n < 0) return setError(new Error("Versions kept must be a whole number, 0 or more (0 = the mount's setting)."));
    const keys = rows.map((r) => r.key).filter(Boolean);
    if (new Set(keys).size !== keys.length) return setError(new Error('Two custom metadata rows have the same key.'));
    try {
      await api('secrets', kvApi(mount, 'metadata', path), {
        method: 'POST',
        body: {
          max_versions: n,
          cas_required: cas,
          delete_version_after: deleteAfter.trim() || '0s',
          custom_metadata: Object.fromEntries(rows.filter((r) => r.key !== '').map((r) => [r.key, r.value])),
        },
      });
      await onChanged();
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  const setRow = (id: number, patch: Partial<Row>) => setRows(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Edit metadata">
      <div className="field">
        <label htmlFor="meta-max">Versions kept (0 = the mount's setting)</label>
        <input id="meta-max" type="number" min={0} value={maxVersions} onChange={(e) => setMaxVersions(e.target.value)} />
      </div>
      <div className="field inline check">
        <input id="meta-cas" type="checkbox" checked={cas} onChange={(e) => setCas(e.target.checked)} />
        <label htmlFor="meta-cas">Require check-and-set on every write</label>
      </div>
      <div className="field">
        <label htmlFor="meta-delete">Delete versions after (a duration, e.g. 720h; 0s = never)</label>
        <input id="meta-delete" value={deleteAfter} onChange={(e) => setDeleteAfter(e.target.value)} />
      </div>
      <fieldset>
        <legend>Custom metadata</legend>
        {rows.map((r, i) => (
          <div className="kv-row" key={r.id}>
            <input aria-label={`Metadata key ${i + 1}`} value={r.key} onChange={(e) => setRow(r.id, { key: e.target.value })} placeholder="key" />
            <input aria-label={`Metadata value ${i + 1}`} value={r.value} onChange={(e) => setRow(r.id, { value: e.target.value })} placeholder="value" />
            <button type="button" aria-label={`Remove metadata row ${i + 1}`} onClick={() => setRows(rows.filter((x) => x.id !== r.id))}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setRows([...rows, { id: nextId++, key: '', value: '' }])}>
          Add metadata row
        </button>
      </fieldset>
      <ErrorNotice error={error} />
      <div className="actions">
        <button type="submit" className="primary">
          Save metadata
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
