/**
 * The secrets service's OIDC login from the browser, as the reference UI does it: ask
 * `auth/<mount>/oidc/auth_url` for the provider's URL with a `redirect_uri` under the UI,
 * open it in a popup (or, when the browser blocks popups, in this tab), and exchange the
 * `state` and `code` the provider sends back at `auth/<mount>/oidc/callback` for a token.
 *
 * The redirect URI is `<origin>/ui/secrets/auth/<mount>/oidc/callback` (the reference's is
 * `<origin>/ui/vault/auth/<mount>/oidc/callback`): the role's `allowed_redirect_uris` must
 * name it. The popup's callback page only posts `state` and `code` to this tab (same
 * origin checked); the exchange and the token stay in this tab. A `client_nonce` kept in
 * this tab's sessionStorage binds the callback to the tab that started the login.
 */
import { api } from './client';

/** sessionStorage key of a login in progress: `{mount, nonce, from}`. */
const PENDING = 'cairn.oidc';

/** A login in progress, kept until its callback. */
export interface PendingOidc {
  readonly mount: string;
  readonly nonce: string;
  /** The UI page asked for before the login, if any. */
  readonly from?: string;
}

/** The message the popup's callback page posts to the tab that opened it. */
export interface OidcMessage {
  readonly source: 'cairn-oidc-callback';
  readonly state: string;
  readonly code: string;
  /** The provider's error (`error`, `error_description`), when it refused. */
  readonly error?: string;
}

/** The UI route of the callback (router path, under the `/ui` base). */
const callbackRoute = (mount: string): string => `/secrets/auth/${encodeURIComponent(mount)}/oidc/callback`;

/** The absolute redirect URI the provider sends the browser back to. */
const redirectUri = (mount: string): string => `${location.origin}/ui${callbackRoute(mount)}`;

/** The login in progress in this tab, if any. */
export function pendingOidc(): PendingOidc | undefined {
  const raw = sessionStorage.getItem(PENDING);
  return raw ? (JSON.parse(raw) as PendingOidc) : undefined;
}

/**
 * Exchanges the provider's `state` and `code` for a token at `auth/<mount>/oidc/callback`
 * and forgets the pending login.
 * @returns the token and a label of who logged in (the token's `display_name` or metadata).
 * @throws ApiError the service's refusal (an expired state, a claim not allowed, …).
 */
export async function finishOidc(p: PendingOidc, state: string, code: string): Promise<{ token: string; who: string }> {
  const q = new URLSearchParams({ state, code, client_nonce: p.nonce });
  try {
    const r = await api<{ auth: { client_token: string; metadata?: Record<string, string> | null } }>(
      'secrets',
      `/v1/auth/${encodeURIComponent(p.mount)}/oidc/callback?${q}`,
      { token: '' },
    );
    const m = r.auth.metadata ?? {};
    return { token: r.auth.client_token, who: m.email ?? m.name ?? m.sub ?? m.role ?? '' };
  } finally {
    sessionStorage.removeItem(PENDING);
  }
}

/**
 * Starts a login: asks for the provider's URL, then opens it in a popup and waits for the
 * callback page's message. When the popup is blocked, this tab goes to the provider instead
 * (the callback route finishes the login) and the promise never settles.
 * @throws ApiError the auth_url refusal (unknown role, redirect URI not allowed); Error when
 *   the popup is closed before the provider answered, or the provider refused.
 */
export async function startOidc(mount: string, role: string, from?: string): Promise<{ token: string; who: string }> {
  const nonce = randomNonce();
  const r = await api<{ data: { auth_url: string } }>('secrets', `/v1/auth/${encodeURIComponent(mount)}/oidc/auth_url`, {
    method: 'POST',
    body: { role: role || undefined, redirect_uri: redirectUri(mount), client_nonce: nonce },
    token: '',
  });
  if (!r.data.auth_url) throw new Error(`the ${mount} auth method gave no provider URL (is its role right?)`);
  const pending: PendingOidc = { mount, nonce, from };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const popup = window.open(r.data.auth_url, 'cairn-oidc', 'popup,width=500,height=640');
  if (!popup) {
    location.assign(r.data.auth_url);
    return new Promise(() => {});
  }
  const msg = await popupMessage(popup);
  if (msg.error) {
    sessionStorage.removeItem(PENDING);
    throw new Error(`The provider refused the login: ${msg.error}`);
  }
  return finishOidc(pending, msg.state, msg.code);
}

/** Waits for the callback message from `popup` (this origin only), or its closing. */
function popupMessage(popup: Window): Promise<OidcMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (e: MessageEvent) => {
      const m = e.data as Partial<OidcMessage> | null;
      if (e.origin !== location.origin || e.source !== popup || m?.source !== 'cairn-oidc-callback') return;
      done();
      resolve(m as OidcMessage);
    };
    // A popup closed by the user sends nothing: checked twice a second, and given one more
    // check after it closed, as the callback page posts its message just before closing.
    let closedSeen = false;
    const timer = setInterval(() => {
      if (!popup.closed) return;
      if (!closedSeen) {
        closedSeen = true;
        return;
      }
      done();
      reject(new Error('The login window was closed before the provider answered.'));
    }, 500);
    const done = () => {
      window.removeEventListener('message', onMessage);
      clearInterval(timer);
    };
    window.addEventListener('message', onMessage);
  });
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
