/**
 * Login with a token or (where the secrets service is reached) a userpass username and
 * password, OIDC through the provider in a popup (api/oidc.ts), or a pasted JWT at a `jwt`
 * auth method; the token stays in this tab. A token is checked with the first reachable
 * service's "who am I" read.
 */
import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, gatewayOnly, hasSection, type Section } from '../api/client';
import { startOidc } from '../api/oidc';
import { saveSession } from '../api/session';
import { ErrorNotice } from '../components/Notice';

type Method = 'token' | 'userpass' | 'oidc' | 'jwt';

/** The secrets service's login methods besides a token, with their labels; each one's mount defaults to its type. */
const SECRETS_METHODS: Array<[Exclude<Method, 'token'>, string]> = [
  ['userpass', 'Username and password'],
  ['oidc', 'OIDC'],
  ['jwt', 'JWT'],
];

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
  const [mounts, setMounts] = useState<Record<string, string>>({ userpass: 'userpass', oidc: 'oidc', jwt: 'jwt' });
  const [role, setRole] = useState('');
  const [jwt, setJwt] = useState('');
  const mount = mounts[method] ?? '';
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
      if (method === 'oidc') {
        const done = await startOidc(mount, role.trim(), from);
        secret = done.token;
        via = done.who ? `oidc (${done.who})` : 'oidc';
      } else if (method === 'jwt') {
        const res = await api<{ auth: { client_token: string; metadata?: Record<string, string> | null } }>(
          'secrets',
          `/v1/auth/${encodeURIComponent(mount)}/login`,
          {
            method: 'POST',
            body: { role: role.trim() || undefined, jwt: jwt.trim() },
            token: '',
          },
        );
        secret = res.auth.client_token;
        const m = res.auth.metadata ?? {};
        via = `jwt (${m.email ?? m.sub ?? m.role ?? mount})`;
      } else if (method === 'userpass') {
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
      // A gateway controller alone: the login token is the gateway's too (its overview card reads with it).
      saveSession({ token: secret, via, namespace: '', ...(gatewayOnly() && { gatewayToken: secret }) });
      navigate(from && from !== '/login' ? from : home, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setPassword('');
      setJwt('');
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
          {hasSection('secrets') &&
            SECRETS_METHODS.map(([m, label]) => (
              <label key={m}>
                <input type="radio" name="method" checked={method === m} onChange={() => setMethod(m)} /> {label}
              </label>
            ))}
        </fieldset>
        {method === 'token' && (
          <div className="field">
            <label htmlFor="token">Token</label>
            <input id="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
          </div>
        )}
        {method === 'userpass' && (
          <>
            <div className="field">
              <label htmlFor="user">Username</label>
              <input id="user" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input id="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            </div>
          </>
        )}
        {method === 'jwt' && (
          <div className="field">
            <label htmlFor="jwt">JWT</label>
            <textarea id="jwt" className="mono" rows={4} spellCheck={false} autoComplete="off" value={jwt} onChange={(e) => setJwt(e.target.value)} required />
          </div>
        )}
        {method !== 'token' && (
          <div className="field">
            <label htmlFor="mount">Auth mount</label>
            <input id="mount" value={mount} onChange={(e) => setMounts((ms) => ({ ...ms, [method]: e.target.value }))} required />
          </div>
        )}
        {(method === 'oidc' || method === 'jwt') && (
          <div className="field">
            <label htmlFor="role">Role</label>
            <input id="role" value={role} onChange={(e) => setRole(e.target.value)} aria-describedby="role-hint" />
            <span id="role-hint" className="muted">
              Empty: the auth method&apos;s default role.{method === 'oidc' ? ' The provider opens in a new window.' : ''}
            </span>
          </div>
        )}
        <ErrorNotice error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
