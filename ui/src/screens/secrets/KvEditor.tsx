/**
 * Edits a secret's data as key/value rows or as JSON (CodeMirror, loaded on demand). Data
 * with non-string values opens as JSON, since rows hold strings only.
 */
import { lazy, Suspense, useState, type FormEvent } from 'react';
import type { SecretData } from './kvApi';

const CodeEditor = lazy(() => import('../../components/CodeEditor'));

interface Row {
  id: number;
  key: string;
  value: string;
}

let nextId = 1;
const toRows = (d: SecretData): Row[] => Object.entries(d).map(([key, value]) => ({ id: nextId++, key, value: String(value) }));

/** The form; `onSave` gets the data and may throw (its message is shown by the caller). */
export function KvEditor({
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: SecretData;
  submitLabel: string;
  onSave: (d: SecretData) => void;
  onCancel?: () => void;
}) {
  const allStrings = Object.values(initial).every((v) => typeof v === 'string');
  const [mode, setMode] = useState<'rows' | 'json'>(allStrings ? 'rows' : 'json');
  const [rows, setRows] = useState<Row[]>(() => (Object.keys(initial).length ? toRows(initial) : [{ id: nextId++, key: '', value: '' }]));
  const [json, setJson] = useState(() => JSON.stringify(initial, null, 2));
  const [problem, setProblem] = useState<string>();

  const fromRows = (): SecretData => Object.fromEntries(rows.filter((r) => r.key !== '').map((r) => [r.key, r.value]));
  const fromJson = (): SecretData | undefined => {
    try {
      const v = JSON.parse(json) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as SecretData;
      setProblem('The JSON must be an object of keys and values.');
    } catch (err) {
      setProblem(`Invalid JSON: ${(err as Error).message}`);
    }
    return undefined;
  };
  const switchTo = (m: 'rows' | 'json') => {
    setProblem(undefined);
    if (m === mode) return;
    if (m === 'json') setJson(JSON.stringify(fromRows(), null, 2));
    else {
      const d = fromJson();
      if (!d) return;
      if (!Object.values(d).every((v) => typeof v === 'string')) return setProblem('Rows hold text values only; keep editing as JSON.');
      setRows(toRows(d));
    }
    setMode(m);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(undefined);
    const keys = rows.map((r) => r.key).filter(Boolean);
    if (mode === 'rows' && new Set(keys).size !== keys.length) return setProblem('Two rows have the same key.');
    const d = mode === 'rows' ? fromRows() : fromJson();
    if (d) onSave(d);
  };
  const setRow = (id: number, patch: Partial<Row>) => setRows(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));

  return (
    <form onSubmit={submit} className="kv-editor" aria-label="Secret data">
      <div role="group" aria-label="Edit as" className="segmented">
        <button type="button" aria-pressed={mode === 'rows'} onClick={() => switchTo('rows')}>
          Key/value rows
        </button>
        <button type="button" aria-pressed={mode === 'json'} onClick={() => switchTo('json')}>
          JSON
        </button>
      </div>
      {mode === 'rows' ? (
        <fieldset>
          <legend>Data</legend>
          {rows.map((r, i) => (
            <div className="kv-row" key={r.id}>
              <input aria-label={`Key ${i + 1}`} value={r.key} onChange={(e) => setRow(r.id, { key: e.target.value })} placeholder="key" />
              <input
                aria-label={`Value ${i + 1}`}
                type="password"
                autoComplete="off"
                value={r.value}
                onChange={(e) => setRow(r.id, { value: e.target.value })}
                placeholder="value"
              />
              <button type="button" aria-label={`Remove row ${i + 1}`} onClick={() => setRows(rows.filter((x) => x.id !== r.id))}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" onClick={() => setRows([...rows, { id: nextId++, key: '', value: '' }])}>
            Add row
          </button>
        </fieldset>
      ) : (
        <Suspense fallback={<p>Loading editor…</p>}>
          <CodeEditor label="Secret data as JSON" language="json" value={json} onChange={setJson} />
        </Suspense>
      )}
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary">
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
