/**
 * Login with a token or (where the secrets service is reached) a userpass username and
 * password; the token stays in this tab. A token is checked with the first reachable
 * service's "who am I" read.
 */
import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, hasSection, type Section } from '../api/client';
import { saveSession } from '../api/session';
import { ErrorNotice } from '../components/Notice';

type Method = 'token' | 'userpass';

/** Each section's read of the caller's own token. */
const SELF: Array<[Section, string]> = [
  ['secrets', '/v1/auth/token/lookup-self'],
  ['mesh', '/v1/acl/token/self'],
  ['sched', '/v1/acl/token/self'],
  // A gateway controller alone (its own section): its API has no "self" read; any read checks the bearer token.
  ['gateway', '/v1/workers'],
];

/** `home`: where to go after login when no page was asked for. */
export function Login({ home }: { home: string }) {
  const [method, setMethod] = useState<Method>('token');
  const [token, setToken] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [mount, setMount] = useState('userpass');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      let secret = token.trim();
      let via = 'token';
      if (method === 'userpass') {
        const res = await api<{ auth: { client_token: string } }>('secrets', `/v1/auth/${encodeURIComponent(mount)}/login/${encodeURIComponent(user)}`, {
          method: 'POST',
          body: { password },
          token: '',
        });
        secret = res.auth.client_token;
        via = `userpass (${user})`;
      } else {
        // Proves the token works before the UI uses it.
        const [section, path] = SELF.find(([s]) => hasSection(s)) ?? SELF[0];
        await api(section, path, { token: secret });
      }
      saveSession({ token: secret, via, namespace: '' });
      navigate(from && from !== '/login' ? from : home, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setPassword('');
    }
  };

  return (
    <main className="login">
      <h1>Sign in to Cairn</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <fieldset>
          <legend>Method</legend>
          <label>
            <input type="radio" name="method" checked={method === 'token'} onChange={() => setMethod('token')} /> Token
          </label>
          {hasSection('secrets') && (
            <label>
              <input type="radio" name="method" checked={method === 'userpass'} onChange={() => setMethod('userpass')} /> Username and password
            </label>
          )}
        </fieldset>
        {method === 'token' ? (
          <div className="field">
            <label htmlFor="token">Token</label>
            <input id="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
          </div>
        ) : (
          <>
            <div className="field">
              <label htmlFor="user">Username</label>
              <input id="user" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input id="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            </div>
            <div className="field">
              <label htmlFor="mount">Auth mount</label>
              <input id="mount" value={mount} onChange={(e) => setMount(e.target.value)} required />
            </div>
          </>
        )}
        <ErrorNotice error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
