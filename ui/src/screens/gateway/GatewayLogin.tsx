/**
 * The gateway section's own login: a password auth method (`POST
 * /v1/auth-methods/{id}:authenticate` with `{attributes:{login_name,password}}`, the
 * reply's `attributes.token`), its ID chosen from the global scope's auth methods (a list
 * the anonymous user may read), or the controller's static token (the recovery
 * credential). The token is kept in this tab's session only, like the other tokens.
 *
 * An OIDC auth method (listed to the anonymous user when `active-public`) signs in as the
 * reference's web client does: `{"command":"start"}` gives the provider URL, opened in a
 * popup (or shown as a link when popups are blocked); `{"command":"token"}` is polled
 * every 1.5 s, answered 202 until the login completed at the provider, then the token.
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { currentSession, saveSession } from '../../api/session';
import { ErrorNotice } from '../../components/Notice';

interface AuthMethod {
  id: string;
  name?: string;
  type: string;
}

/** Stores the gateway token (and how it was obtained) in this tab's session. */
function storeGatewayToken(token: string, via: string): void {
  saveSession({ ...currentSession()!, gatewayToken: token, gatewayVia: via });
}

/** `onSet`: called once a gateway token is stored. */
export function GatewayLogin({ onSet }: { onSet: () => void }) {
  // Anonymous (token ''): the login grants let anyone list the auth methods.
  const methods = useQuery({
    queryKey: ['gateway', 'login-methods'],
    queryFn: () => api<{ items?: AuthMethod[] }>('gateway', '/v1/auth-methods?scope_id=global', { token: '' }).then((r) => r.items ?? []),
  });
  const passwordMethods = (methods.data ?? []).filter((m) => m.type === 'password');
  const oidcMethods = (methods.data ?? []).filter((m) => m.type === 'oidc');
  const [method, setMethod] = useState('');
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const methodId = method || passwordMethods[0]?.id || '';
  const [oidcError, setOidcError] = useState<unknown>();
  const [oidcWaiting, setOidcWaiting] = useState<{ url: string } | undefined>();

  const oidcLogin = async (am: AuthMethod) => {
    setOidcError(undefined);
    const path = `/v1/auth-methods/${encodeURIComponent(am.id)}:authenticate`;
    try {
      const start = await api<{ attributes: { auth_url: string; token_id: string } }>('gateway', path, {
        method: 'POST',
        body: { command: 'start' },
        token: '',
      });
      const popup = window.open(start.attributes.auth_url, 'cairn-gateway-oidc', 'popup,width=520,height=640');
      setOidcWaiting({ url: start.attributes.auth_url });
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        // 202 (no token yet) comes back with the status attributes only.
        const res = await api<{ attributes: { token?: string } }>('gateway', path, {
          method: 'POST',
          body: { command: 'token', attributes: { token_id: start.attributes.token_id } },
          token: '',
        });
        if (res.attributes.token) {
          popup?.close();
          storeGatewayToken(res.attributes.token, `oidc (${am.name ?? am.id})`);
          onSet();
          return;
        }
      }
    } catch (err) {
      setOidcError(err);
    } finally {
      setOidcWaiting(undefined);
    }
  };

  const passwordLogin = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const res = await api<{ attributes: { token: string } }>('gateway', `/v1/auth-methods/${encodeURIComponent(methodId)}:authenticate`, {
        method: 'POST',
        body: { attributes: { login_name: login.trim(), password } },
        token: '',
      });
      storeGatewayToken(res.attributes.token, `password (${login.trim()})`);
      onSet();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setPassword('');
    }
  };
  const useStatic = (e: FormEvent) => {
    e.preventDefault();
    storeGatewayToken(token.trim(), 'static token');
    onSet();
  };

  return (
    <>
      <h1>Gateway</h1>
      <form className="narrow" onSubmit={(e) => void passwordLogin(e)} aria-label="Gateway password login">
        <h2>Sign in with a password</h2>
        <div className="field">
          <label htmlFor="gw-am">Auth method ID</label>
          <input
            id="gw-am"
            list="gw-am-list"
            autoComplete="off"
            value={methodId}
            onChange={(e) => setMethod(e.target.value)}
            required
            aria-describedby="gw-am-hint"
          />
          <datalist id="gw-am-list">
            {passwordMethods.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name ?? m.id}
              </option>
            ))}
          </datalist>
          <span id="gw-am-hint" className="muted">
            A password auth method of the global scope.
          </span>
        </div>
        <div className="field">
          <label htmlFor="gw-login">Login name</label>
          <input id="gw-login" autoComplete="username" value={login} onChange={(e) => setLogin(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="gw-password">Password</label>
          <input id="gw-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </div>
        <ErrorNotice error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in to the gateway
        </button>
      </form>
      {oidcMethods.length > 0 && (
        <section className="narrow" aria-label="Gateway OIDC login">
          <h2>Sign in with OIDC</h2>
          {oidcMethods.map((m) => (
            <button key={m.id} type="button" className="primary" disabled={!!oidcWaiting} onClick={() => void oidcLogin(m)}>
              Sign in with {m.name ?? m.id}
            </button>
          ))}
          {oidcWaiting && (
            <p role="status">
              Waiting for the login at your provider… If no window opened,{' '}
              <a href={oidcWaiting.url} target="_blank" rel="noreferrer">
                open the provider's page
              </a>
              .
            </p>
          )}
          <ErrorNotice error={oidcError} />
        </section>
      )}
      <form className="narrow" onSubmit={useStatic} aria-label="Gateway token">
        <h2>Or use a token</h2>
        <div className="field">
          <label htmlFor="gw-token">Gateway API token</label>
          <input id="gw-token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
        </div>
        <button type="submit" className="primary">
          Use token
        </button>
      </form>
    </>
  );
}
