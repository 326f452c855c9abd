/**
 * Two versions of a secret side by side, key by key: added, removed and changed keys marked.
 * Values stay hidden until the user reveals them, as on the secret's own view (SecretValue).
 */
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../components/Notice';
import { readVersion, type SecretData, type SecretMeta } from './kvApi';

interface Compared {
  left: number;
  right: number;
  a: SecretData | null;
  b: SecretData | null;
  /** Which compare this is: each new one starts with its values hidden again. */
  seq: number;
}

export function KvDiff({ mount, path, meta }: { mount: string; path: string; meta: SecretMeta }) {
  const numbers = Object.keys(meta.versions)
    .map(Number)
    .sort((x, y) => x - y);
  const [left, setLeft] = useState(numbers.length > 1 ? numbers[numbers.length - 2] : numbers[0]);
  const [right, setRight] = useState(numbers[numbers.length - 1]);
  const [compared, setCompared] = useState<Compared>();
  const [error, setError] = useState<unknown>();
  if (numbers.length < 2) return null;

  const compare = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const [a, b] = await Promise.all([readVersion(mount, path, left), readVersion(mount, path, right)]);
      setCompared((c) => ({ left, right, a, b, seq: (c?.seq ?? 0) + 1 }));
    } catch (err) {
      setError(err);
    }
  };
  const select = (id: string, label: string, value: number, set: (n: number) => void) => (
    <div className="field inline">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(Number(e.target.value))}>
        {numbers.map((n) => (
          <option key={n} value={n}>
            Version {n}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <section aria-labelledby="diff-h">
      <h2 id="diff-h">Compare versions</h2>
      <form className="toolbar" onSubmit={(e) => void compare(e)}>
        {select('diff-left', 'From', left, setLeft)}
        {select('diff-right', 'To', right, setRight)}
        <button type="submit">Compare</button>
      </form>
      <ErrorNotice error={error} />
      {compared && <DiffTable key={compared.seq} {...compared} />}
    </section>
  );
}

/** The hidden form of a value, as SecretValue shows it. */
const HIDDEN = '••••••••';

function DiffTable({ left, right, a, b }: Compared) {
  const [revealed, setRevealed] = useState(false);
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort();
  const text = (d: SecretData | null, k: string) => (d && k in d ? (typeof d[k] === 'string' ? (d[k] as string) : JSON.stringify(d[k])) : undefined);
  const cell = (v: string | undefined) => (v === undefined ? '—' : revealed ? v : HIDDEN);
  return (
    <>
      <button type="button" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
        {revealed ? 'Hide values' : 'Reveal values'}
      </button>
      <table className="diff" data-testid="diff">
        <caption>
          Version {left} → version {right}
          {a === null ? ` (version ${left} is deleted or destroyed)` : ''}
          {b === null ? ` (version ${right} is deleted or destroyed)` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Version {left}</th>
            <th scope="col">Version {right}</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const x = text(a, k);
            const y = text(b, k);
            const change = x === undefined ? 'added' : y === undefined ? 'removed' : x === y ? 'same' : 'changed';
            return (
              <tr key={k} className={`diff-${change}`}>
                <th scope="row">{k}</th>
                <td>
                  <code>{cell(x)}</code>
                </td>
                <td>
                  <code>{cell(y)}</code>
                </td>
                <td>{change}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
