/**
 * Response-wrapping tools (reference/secrets.md §1.3, `sys/wrapping/*`): wrap a JSON object
 * (`POST /v1/sys/wrapping/wrap` with the `X-Secrets-Wrap-TTL` header), unwrap a token (its
 * data is shown once: the server revokes the token), look a token up without using it, and
 * rewrap (a new token for the same data; the old one stops working).
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { SecretValue } from './SecretValue';
import { SecretsNav } from './SecretsNav';

interface WrapInfo {
  token: string;
  accessor: string;
  ttl: number;
  creation_time: string;
  creation_path: string;
}

export function Wrapping() {
  return (
    <>
      <SecretsNav />
      <h1>Response wrapping</h1>
      <WrapForm />
      <TokenForm
        id="unwrap"
        title="Unwrap a token"
        hint="Shows the wrapped data once: the token is used up by unwrapping."
        action="Unwrap"
        call={async (token) => {
          const r = await api<{ data: unknown }>('secrets', '/v1/sys/wrapping/unwrap', { method: 'POST', body: { token } });
          return (
            <>
              <p role="status">Unwrapped data (the token no longer works):</p>
              <pre data-testid="unwrapped">{JSON.stringify(r.data, null, 2)}</pre>
            </>
          );
        }}
      />
      <TokenForm
        id="lookup"
        title="Look up a wrapping token"
        hint="Where and when a token was made and how long it lives, without using it."
        action="Look up"
        call={async (token) => {
          const r = await api<{ data: { creation_path: string; creation_time: string; creation_ttl: number } }>('secrets', '/v1/sys/wrapping/lookup', {
            method: 'POST',
            body: { token },
          });
          return (
            <dl className="facts" data-testid="wrap-lookup">
              <div>
                <dt>Created by</dt>
                <dd>{r.data.creation_path}</dd>
              </div>
              <div>
                <dt>Created at</dt>
                <dd>{new Date(r.data.creation_time).toLocaleString()}</dd>
              </div>
              <div>
                <dt>TTL</dt>
                <dd>{r.data.creation_ttl} s</dd>
              </div>
            </dl>
          );
        }}
      />
      <TokenForm
        id="rewrap"
        title="Rewrap a token"
        hint="Moves the wrapped data to a new token; the old one stops working."
        action="Rewrap"
        call={async (token) => (
          <WrapResult info={(await api<{ wrap_info: WrapInfo }>('secrets', '/v1/sys/wrapping/rewrap', { method: 'POST', body: { token } })).wrap_info} />
        )}
      />
    </>
  );
}

/** The token a wrap or rewrap made: hidden until revealed, copyable. */
function WrapResult({ info }: { info: WrapInfo }) {
  return (
    <p role="status">
      Wrapping token (shown once, valid {info.ttl} s): <SecretValue name="wrapping token" value={info.token} /> accessor <code>{info.accessor}</code>
    </p>
  );
}

function WrapForm() {
  const [json, setJson] = useState('{\n  "key": "value"\n}');
  const [ttl, setTtl] = useState('5m');
  const [result, setResult] = useState<WrapInfo>();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setResult(undefined);
    let body: unknown;
    try {
      body = JSON.parse(json);
    } catch (err) {
      return setError(new Error(`Invalid JSON: ${(err as Error).message}`));
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return setError(new Error('The data to wrap must be a JSON object.'));
    try {
      setResult(
        (await api<{ wrap_info: WrapInfo }>('secrets', '/v1/sys/wrapping/wrap', { method: 'POST', body, headers: { 'X-Secrets-Wrap-TTL': ttl.trim() } }))
          .wrap_info,
      );
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="wrap-h">
      <h2 id="wrap-h">Wrap data</h2>
      <form onSubmit={(e) => void submit(e)} aria-labelledby="wrap-h">
        <div className="field">
          <label htmlFor="wrap-json">Data to wrap (a JSON object)</label>
          <textarea id="wrap-json" className="mono" rows={5} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false} />
        </div>
        <div className="toolbar">
          <div className="field inline">
            <label htmlFor="wrap-ttl">TTL</label>
            <input id="wrap-ttl" value={ttl} onChange={(e) => setTtl(e.target.value)} size={6} required />
          </div>
          <button type="submit" className="primary">
            Wrap
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      {result && <WrapResult info={result} />}
    </section>
  );
}

/** A form taking a wrapping token; `call` turns the token into what to show, or throws the server's error. */
function TokenForm({
  id,
  title,
  hint,
  action,
  call,
}: {
  id: string;
  title: string;
  hint: string;
  action: string;
  call: (token: string) => Promise<ReactNode>;
}) {
  const [token, setToken] = useState('');
  const [shown, setShown] = useState<ReactNode>();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setShown(undefined);
    try {
      setShown(await call(token.trim()));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      <p className="muted">{hint}</p>
      <form className="toolbar" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-h`}>
        <div className="field inline">
          <label htmlFor={`${id}-token`}>Wrapping token</label>
          <input id={`${id}-token`} type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required size={40} />
        </div>
        <button type="submit">{action}</button>
      </form>
      <ErrorNotice error={error} />
      {shown}
    </section>
  );
}
