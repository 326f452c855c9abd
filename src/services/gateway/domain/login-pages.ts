/**
 * The pages an OIDC login ends on in the browser (the reference's web client routes the
 * callback redirects to, `internal/auth/oidc` FinalRedirectEndpoint and
 * AuthenticationErrorsEndpoint): `GET /authentication-complete` ("you may close this
 * window") and `GET /authentication-error?error=<JSON API error>` (its message). Plain
 * HTML without scripts; the error text is escaped.
 *
 * @module
 */
import type { RouteContext, RouteReply } from '../route.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, text: string): RouteReply {
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>\n<body><main><h1>${escape(title)}</h1><p>${escape(text)}</p></main></body></html>\n`;
  return {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'",
      'X-Frame-Options': 'DENY',
    },
    raw: body,
  };
}

/** The message of the `error` parameter (the API error JSON the callback put there), else the raw text. */
function messageOf(error: string | null): string {
  if (!error) return 'The login did not complete.';
  try {
    const e = JSON.parse(error) as { message?: unknown };
    if (typeof e.message === 'string') return e.message;
  } catch {
    // not JSON: shown as sent
  }
  return error;
}

/** `GET /authentication-complete`: the login succeeded. */
export const authenticationComplete = async (): Promise<RouteReply> =>
  page('Authentication complete', 'You are logged in: you may close this window and go back to where you started.');

/** `GET /authentication-error?error=<JSON API error>`: the login failed, with the error's message. */
export const authenticationError = async ({ req }: RouteContext): Promise<RouteReply> => page('Authentication failed', messageOf(req.query.get('error')));
