/**
 * Audit devices (root namespace only, as the reference): the list (`GET /v1/sys/audit`),
 * enabling a file or socket device with its options (`PUT /v1/sys/audit/:path`), disabling
 * one after a confirmation (`DELETE /v1/sys/audit/:path`) and hashing a value as a device
 * does, to find it in the log (`PUT /v1/sys/audit-hash/:path` → `hash`).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { RootOnlyNote } from './RootOnly';
import { SecretsNav } from './SecretsNav';

interface Device {
  type: string;
  description: string;
  options: Record<string, string> | null;
  path: string;
}

/** The options each device type takes, as the form offers them (audit/routes.ts). */
const OPTIONS: Record<'file' | 'socket', Array<[string, string, string]>> = {
  file: [
    ['file_path', 'File path (a path, "stdout" or "discard")', ''],
    ['mode', 'File mode (octal)', '0600'],
  ],
  socket: [
    ['address', 'Address (host:port or a socket path)', ''],
    ['socket_type', 'Socket type (tcp, udp or unix)', 'tcp'],
  ],
};

export function Audit() {
  const queries = useQueryClient();
  const devices = useQuery({
    queryKey: ['secrets', 'audit'],
    queryFn: () =>
      api<{ data: Record<string, Device> }>('secrets', '/v1/sys/audit').then((r) => Object.entries(r.data ?? {}).sort(([a], [b]) => a.localeCompare(b))),
  });
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['secrets', 'audit'] });

  /** Runs a change, showing its error or `done`, and reloads the list. */
  const act = async (change: () => Promise<unknown>, done: string) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await change();
      setNotice(done);
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  const disable = (path: string) => {
    if (!confirm(`Disable the audit device ${path}? Requests are no longer logged to it.`)) return;
    void act(() => api('secrets', `/v1/sys/audit/${encodeURIComponent(path.replace(/\/$/, ''))}`, { method: 'DELETE' }), `Disabled the audit device ${path}.`);
  };

  return (
    <>
      <SecretsNav />
      <h1>Audit devices</h1>
      <RootOnlyNote what="Audit devices are managed" />
      {devices.isPending && <Loading />}
      <ErrorNotice error={devices.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      {devices.data && devices.data.length === 0 && <p>No audit device is enabled: requests are not audited.</p>}
      {devices.data && devices.data.length > 0 && (
        <table>
          <caption className="sr-only">Enabled audit devices</caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
              <th scope="col">Options</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {devices.data.map(([path, d]) => (
              <tr key={path}>
                <td>{path}</td>
                <td>{d.type}</td>
                <td>{d.description}</td>
                <td>
                  {Object.entries(d.options ?? {}).map(([k, v]) => (
                    <div key={k}>
                      <code>
                        {k} = {v}
                      </code>
                    </div>
                  ))}
                </td>
                <td>
                  <button type="button" className="danger" aria-label={`Disable ${path}`} onClick={() => disable(path)}>
                    Disable
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <EnableForm
        onEnable={(path, body) =>
          act(() => api('secrets', `/v1/sys/audit/${encodeURIComponent(path)}`, { method: 'PUT', body }), `Enabled the audit device ${path}/.`)
        }
      />
      <HashForm devices={(devices.data ?? []).map(([p]) => p)} />
    </>
  );
}

/** The enable form; only the options of the chosen type are sent, empty ones left out. */
function EnableForm({ onEnable }: { onEnable: (path: string, body: unknown) => Promise<void> }) {
  const [type, setType] = useState<'file' | 'socket'>('file');
  const [path, setPath] = useState('');
  const [description, setDescription] = useState('');
  const [options, setOptions] = useState<Record<string, string>>({});
  const [prefix, setPrefix] = useState('');
  const [logRaw, setLogRaw] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const chosen = Object.fromEntries(OPTIONS[type].map(([k, , dflt]) => [k, (options[k] ?? dflt).trim()]).filter(([, v]) => v !== ''));
    if (prefix) chosen.prefix = prefix;
    if (logRaw) chosen.log_raw = 'true';
    void onEnable(path.trim().replace(/^\/+|\/+$/g, '') || type, { type, description, options: chosen });
  };
  return (
    <section aria-labelledby="audit-enable-h">
      <h2 id="audit-enable-h">Enable an audit device</h2>
      <form onSubmit={submit} aria-labelledby="audit-enable-h">
        <div className="field">
          <label htmlFor="audit-type">Type</label>
          <select id="audit-type" value={type} onChange={(e) => setType(e.target.value as 'file' | 'socket')}>
            <option value="file">file</option>
            <option value="socket">socket</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-path">Path (default: the type)</label>
          <input id="audit-path" value={path} placeholder={type} onChange={(e) => setPath(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="audit-description">Description</label>
          <input id="audit-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        {OPTIONS[type].map(([k, label, dflt]) => (
          <div className="field" key={`${type}-${k}`}>
            <label htmlFor={`audit-opt-${k}`}>{label}</label>
            <input id={`audit-opt-${k}`} value={options[k] ?? dflt} onChange={(e) => setOptions({ ...options, [k]: e.target.value })} />
          </div>
        ))}
        <div className="field">
          <label htmlFor="audit-prefix">Prefix of each line</label>
          <input id="audit-prefix" value={prefix} onChange={(e) => setPrefix(e.target.value)} />
        </div>
        <div className="field inline check">
          <input id="audit-log-raw" type="checkbox" checked={logRaw} onChange={(e) => setLogRaw(e.target.checked)} />
          <label htmlFor="audit-log-raw">Log values in clear (log_raw; not recommended)</label>
        </div>
        <div className="actions">
          <button type="submit" className="primary">
            Enable device
          </button>
        </div>
      </form>
    </section>
  );
}

/** Hashes a value with a device's salt (`sys/audit-hash`), so it can be searched for in that device's log. */
function HashForm({ devices }: { devices: string[] }) {
  const [device, setDevice] = useState('');
  const [input, setInput] = useState('');
  const [hash, setHash] = useState<string>();
  const [error, setError] = useState<unknown>();
  const chosen = device || devices[0] || '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setHash(undefined);
    try {
      const r = await api<{ hash: string }>('secrets', `/v1/sys/audit-hash/${encodeURIComponent(chosen.replace(/\/$/, ''))}`, {
        method: 'PUT',
        body: { input },
      });
      setHash(r.hash);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="audit-hash-h">
      <h2 id="audit-hash-h">Hash a value</h2>
      <p className="muted">The hash a device writes in its log for this value, to search the log for it.</p>
      {devices.length === 0 ? (
        <p className="muted">Enable a device first: each device hashes with its own salt.</p>
      ) : (
        <form className="toolbar" onSubmit={(e) => void submit(e)} aria-labelledby="audit-hash-h">
          <div className="field inline">
            <label htmlFor="hash-device">Device</label>
            <select id="hash-device" value={chosen} onChange={(e) => setDevice(e.target.value)}>
              {devices.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </div>
          <div className="field inline">
            <label htmlFor="hash-input">Value</label>
            <input id="hash-input" type="password" autoComplete="off" value={input} onChange={(e) => setInput(e.target.value)} required />
          </div>
          <button type="submit">Hash</button>
        </form>
      )}
      <ErrorNotice error={error} />
      {hash && (
        <p role="status">
          Hash: <code data-testid="audit-hash">{hash}</code>
        </p>
      )}
    </section>
  );
}
