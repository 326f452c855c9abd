/**
 * A transit engine (reference/secrets-engines.md §6): its keys (create with a type), and the
 * chosen key's versions and settings (rotate, configure the minimum versions, deletion and
 * auto-rotation, delete) with an encrypt/decrypt tool (TransitKey.tsx).
 */
import { useState, type FormEvent } from 'react';
import { DataTable } from '../../../components/DataTable';
import { ErrorNotice } from '../../../components/Notice';
import { engineCall, useAction, useKeys } from './engineApi';
import { TransitKey } from './TransitKey';

/** Key types the engine creates (the reference's list; aes256-gcm96 its default). */
const TYPES = [
  'aes256-gcm96',
  'aes128-gcm96',
  'chacha20-poly1305',
  'ed25519',
  'ecdsa-p256',
  'ecdsa-p384',
  'ecdsa-p521',
  'rsa-2048',
  'rsa-3072',
  'rsa-4096',
] as const;

export function Transit({ mount }: { mount: string }) {
  const keys = useKeys(mount, 'keys');
  const { error, notice, run } = useAction();
  const [chosen, setChosen] = useState<string>();
  const [name, setName] = useState('');
  const [type, setType] = useState<string>(TYPES[0]);
  const [exportable, setExportable] = useState(false);
  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await engineCall(mount, `keys/${name}`, { method: 'POST', body: { type, exportable } });
      setChosen(name);
      return `Created key ${name} (${type}).`;
    });
  };
  return (
    <>
      <h1>Transit engine {mount}/</h1>
      <ErrorNotice error={keys.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      <h2>Keys</h2>
      <DataTable
        testId="transit-keys"
        caption="Encryption keys"
        rows={keys.data ?? []}
        rowKey={(k) => k}
        columns={[
          [
            'Name',
            (k) => (
              <button type="button" className="link" aria-current={k === chosen} onClick={() => setChosen(k)}>
                {k}
              </button>
            ),
          ],
        ]}
      />
      <form className="toolbar" onSubmit={create} aria-label="Create a key">
        <div className="field inline">
          <label htmlFor="key-name">Key name</label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} required />
        </div>
        <div className="field inline">
          <label htmlFor="key-type">Type</label>
          <select id="key-type" value={type} onChange={(e) => setType(e.target.value)}>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </div>
        <div className="field inline">
          <input id="key-exportable" type="checkbox" checked={exportable} onChange={(e) => setExportable(e.target.checked)} />
          <label htmlFor="key-exportable">Exportable (cannot be undone)</label>
        </div>
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
      {chosen && <TransitKey key={chosen} mount={mount} name={chosen} run={run} onDeleted={() => setChosen(undefined)} />}
    </>
  );
}
