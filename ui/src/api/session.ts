/**
 * The login of this browser tab: the token, where it came from and the namespace, kept in
 * sessionStorage (one tab's, gone when the tab closes), never in a URL, cookie or log.
 */
const KEY = 'cairn.session';

export interface Session {
  readonly token: string;
  /** How the user logged in, shown in the header: `token` or `userpass (<name>)`. */
  readonly via: string;
  /** Secrets namespace ('' = root), sent as `X-Secrets-Namespace`. */
  readonly namespace: string;
  /** Discovery namespace ('' or absent = the token's own, else `default`), sent as `?ns=`. */
  readonly meshNamespace?: string;
  /** The gateway API's own bearer token, given on the gateway screen (it has its own tokens). */
  readonly gatewayToken?: string;
  /** How the gateway token was obtained, shown on the gateway screens: `password (<login>)` or `static token`. */
  readonly gatewayVia?: string;
}

type Listener = (s: Session | undefined) => void;
const listeners = new Set<Listener>();

/** The tab's session, if logged in. */
export function currentSession(): Session | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    sessionStorage.removeItem(KEY);
    return undefined;
  }
}

/** Stores `s` (login, namespace change) and tells the subscribers. */
export function saveSession(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
  for (const l of listeners) l(s);
}

/** Logout: forgets everything this tab stored. */
export function clearSession(): void {
  sessionStorage.clear();
  for (const l of listeners) l(undefined);
}

/** Calls `l` on every change; returns the unsubscribe function. */
export function onSessionChange(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
