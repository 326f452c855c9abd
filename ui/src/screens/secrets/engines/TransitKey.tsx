/**
 * One transit key: its versions and settings (`GET keys/:name`), rotate, configure
 * (`keys/:name/config`), delete when allowed, and an encrypt/decrypt tool (UTF-8 text in,
 * base64 on the wire, `vault:v<N>:` ciphertexts out).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Loading } from '../../../components/Notice';
import { base64ToText, textToBase64 } from './base64';
import { engineCall, type useAction } from './engineApi';

interface KeyInfo {
  type: string;
  latest_version: number;
  min_decryption_version: number;
  min_encryption_version: number;
  deletion_allowed: boolean;
  exportable: boolean;
  auto_rotate_period: number;
  supports_encryption: boolean;
  supports_signing: boolean;
  keys: Record<string, number | { creation_time: string }>;
}

type Run = ReturnType<typeof useAction>['run'];

/** A version's creation time: Unix seconds for symmetric keys, RFC 3339 for asymmetric ones. */
const created = (v: number | { creation_time: string }) => new Date(typeof v === 'number' ? v * 1000 : v.creation_time).toLocaleString();

export function TransitKey({ mount, name, run, onDeleted }: { mount: string; name: string; run: Run; onDeleted: () => void }) {
  const q = useQuery({ queryKey: ['secrets', 'engine', mount, 'key', name], queryFn: () => engineCall<KeyInfo>(mount, `keys/${name}`) });
  if (!q.data) return q.error ? <ErrorNotice error={q.error} /> : <Loading />;
  const k = q.data;
  return (
    <section aria-labelledby="key-h">
      <h2 id="key-h">Key {name}</h2>
      <dl className="facts" data-testid="transit-key">
        <div>
          <dt>Type</dt>
          <dd>{k.type}</dd>
        </div>
        <div>
          <dt>Latest version</dt>
          <dd data-testid="latest-version">{k.latest_version}</dd>
        </div>
        <div>
          <dt>Decrypts from version</dt>
          <dd>{k.min_decryption_version}</dd>
        </div>
        <div>
          <dt>Auto-rotation</dt>
          <dd>{k.auto_rotate_period ? `every ${k.auto_rotate_period} s` : 'off'}</dd>
        </div>
      </dl>
      <table data-testid="transit-versions">
        <caption className="sr-only">Versions of {name}</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(k.keys).map(([v, c]) => (
            <tr key={v}>
              <td>{v}</td>
              <td>{created(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="toolbar">
        <button type="button" onClick={() => void run(async () => (await engineCall(mount, `keys/${name}/rotate`, { method: 'POST' }), `Rotated ${name}.`))}>
          Rotate
        </button>
        {k.deletion_allowed && (
          <button
            type="button"
            className="danger"
            onClick={() =>
              confirm(`Delete key ${name}? Everything encrypted with it can no longer be decrypted.`) &&
              void run(async () => {
                await engineCall(mount, `keys/${name}`, { method: 'DELETE' });
                onDeleted();
                return `Deleted key ${name}.`;
              })
            }
          >
            Delete key
          </button>
        )}
      </div>
      <KeyConfig mount={mount} name={name} info={k} run={run} />
      {k.supports_encryption && <CryptoTool mount={mount} name={name} />}
    </section>
  );
}

/** `POST keys/:name/config`. */
function KeyConfig({ mount, name, info, run }: { mount: string; name: string; info: KeyInfo; run: Run }) {
  const [minDec, setMinDec] = useState(String(info.min_decryption_version));
  const [minEnc, setMinEnc] = useState(String(info.min_encryption_version));
  const [deletion, setDeletion] = useState(info.deletion_allowed);
  const [rotate, setRotate] = useState(info.auto_rotate_period ? `${info.auto_rotate_period}s` : '0');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await engineCall(mount, `keys/${name}/config`, {
        method: 'POST',
        body: { min_decryption_version: Number(minDec), min_encryption_version: Number(minEnc), deletion_allowed: deletion, auto_rotate_period: rotate },
      });
      return `Saved the configuration of ${name}.`;
    });
  };
  return (
    <form className="toolbar" onSubmit={submit} aria-label={`Configure ${name}`}>
      <div className="field inline">
        <label htmlFor="cfg-min-dec">Min decryption version</label>
        <input id="cfg-min-dec" type="number" min={1} value={minDec} onChange={(e) => setMinDec(e.target.value)} size={4} />
      </div>
      <div className="field inline">
        <label htmlFor="cfg-min-enc">Min encryption version (0 = latest)</label>
        <input id="cfg-min-enc" type="number" min={0} value={minEnc} onChange={(e) => setMinEnc(e.target.value)} size={4} />
      </div>
      <div className="field inline">
        <label htmlFor="cfg-rotate">Auto-rotate period</label>
        <input id="cfg-rotate" value={rotate} onChange={(e) => setRotate(e.target.value)} size={6} />
      </div>
      <div className="field inline">
        <input id="cfg-deletion" type="checkbox" checked={deletion} onChange={(e) => setDeletion(e.target.checked)} />
        <label htmlFor="cfg-deletion">Deletion allowed</label>
      </div>
      <button type="submit">Save configuration</button>
    </form>
  );
}

/** Encrypts text to a ciphertext and decrypts a ciphertext to text with `name`. */
function CryptoTool({ mount, name }: { mount: string; name: string }) {
  const [plaintext, setPlaintext] = useState('');
  const [ciphertext, setCiphertext] = useState('');
  const [error, setError] = useState<unknown>();
  const act = async (step: () => Promise<void>) => {
    setError(undefined);
    try {
      await step();
    } catch (err) {
      setError(err);
    }
  };
  const encrypt = () =>
    act(async () => {
      const r = await engineCall<{ ciphertext: string }>(mount, `encrypt/${name}`, { method: 'POST', body: { plaintext: textToBase64(plaintext) } });
      setCiphertext(r.ciphertext);
    });
  const decrypt = () =>
    act(async () => {
      const r = await engineCall<{ plaintext: string }>(mount, `decrypt/${name}`, { method: 'POST', body: { ciphertext: ciphertext.trim() } });
      setPlaintext(base64ToText(r.plaintext));
    });
  return (
    <section aria-labelledby="tool-h">
      <h3 id="tool-h">Encrypt and decrypt</h3>
      <ErrorNotice error={error} />
      <div className="field">
        <label htmlFor="tool-plaintext">Plaintext</label>
        <textarea id="tool-plaintext" value={plaintext} onChange={(e) => setPlaintext(e.target.value)} rows={3} cols={70} />
      </div>
      <div className="toolbar">
        <button type="button" className="primary" onClick={() => void encrypt()}>
          Encrypt
        </button>
        <button type="button" onClick={() => void decrypt()}>
          Decrypt
        </button>
      </div>
      <div className="field">
        <label htmlFor="tool-ciphertext">Ciphertext</label>
        <textarea id="tool-ciphertext" value={ciphertext} onChange={(e) => setCiphertext(e.target.value)} rows={3} cols={70} />
      </div>
    </section>
  );
}
