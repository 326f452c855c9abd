/**
 * The OIDC provider's redirect back to the UI, `/ui/secrets/auth/<mount>/oidc/callback?state=&code=`
 * (api/oidc.ts). In the popup: hands `state` and `code` to the tab that opened it (same
 * origin only) and closes. In a tab that went to the provider itself (popup blocked):
 * exchanges them for a token, stores it in this tab as the other logins do, and opens the
 * page asked for before the login.
 */
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { finishOidc, pendingOidc, type OidcMessage } from '../api/oidc';
import { saveSession } from '../api/session';
import { ErrorNotice } from '../components/Notice';

export function OidcCallback({ home }: { home: string }) {
  const { mount = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const started = useRef(false);

  useEffect(() => {
    // Once only (StrictMode runs effects twice): a state is good for one exchange.
    if (started.current) return;
    started.current = true;
    const state = params.get('state') ?? '';
    const code = params.get('code') ?? '';
    const refused = params.get('error_description') ?? params.get('error') ?? undefined;
    const opener = window.opener as Window | null;
    if (opener && opener !== window) {
      const msg: OidcMessage = { source: 'cairn-oidc-callback', state, code, error: refused };
      opener.postMessage(msg, location.origin);
      window.close();
      return;
    }
    const pending = pendingOidc();
    if (refused) {
      setError(new Error(`The provider refused the login: ${refused}`));
    } else if (!pending || pending.mount !== mount) {
      setError(new Error('No OIDC login was started in this tab: sign in again.'));
    } else {
      finishOidc(pending, state, code)
        .then(({ token, who }) => {
          saveSession({ token, via: who ? `oidc (${who})` : 'oidc', namespace: '' });
          navigate(pending.from && pending.from !== '/login' ? pending.from : home, { replace: true });
        })
        .catch(setError);
    }
  }, [mount, params, navigate, home]);

  return (
    <main className="login">
      <h1>Signing in with OIDC</h1>
      {error ? (
        <>
          <ErrorNotice error={error} />
          <Link to="/login">Back to sign in</Link>
        </>
      ) : (
        <p aria-live="polite">Completing the login…</p>
      )}
    </main>
  );
}
