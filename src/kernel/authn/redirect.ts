/**
 * Redirect-URI allow-listing for the OIDC flow (reference/mesh.md §5.1): exact string
 * match, except that for loopback hosts (`localhost`, `127.0.0.1`, `::1`) the port is
 * ignored, as RFC 8252 §7.3 asks of native-app redirects.
 *
 * @module
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `redirectUri` is one of `allowed` (see the module comment for the loopback rule). */
export function isAllowedRedirectUri(redirectUri: string, allowed: readonly string[]): boolean {
  if (allowed.includes(redirectUri)) return true;
  const wanted = parse(redirectUri);
  if (!wanted || !LOOPBACK.has(wanted.hostname)) return false;
  return allowed.some((a) => {
    const candidate = parse(a);
    return !!candidate && LOOPBACK.has(candidate.hostname) && withoutPort(candidate) === withoutPort(wanted);
  });
}

function parse(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

function withoutPort(u: URL): string {
  const c = new URL(u.href);
  c.port = '';
  return c.href;
}
