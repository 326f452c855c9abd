/**
 * The built web UI's files as HTTP replies (issue 18): the content type by extension, a
 * strict Content-Security-Policy, long caching for content-hashed assets and none for
 * `index.html`, the single-page app's client routes answered with `index.html`, and any
 * path leaving the UI's folder refused.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { CairnError } from './errors.js';
import type { HttpResponse } from './server.js';

/**
 * Where `vite build` writes the UI: `dist/ui` of the package, found from this file, which is
 * three levels below the package root both as source (`src/kernel/http`) and built (`dist/kernel/http`).
 */
export const BUILT_UI_DIR = join(import.meta.dirname, '..', '..', '..', 'dist', 'ui');

/**
 * The UI's Content-Security-Policy: scripts, styles and requests from this origin only, no
 * inline script or style element, no frames, no plugins. CodeMirror's styles are
 * constructed style sheets (`adoptedStyleSheets`), which the policy does not govern.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Headers every UI reply carries (files, `index.html`, the UI's own JSON). */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': UI_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Vite's output folder for content-hashed files: their name changes with their content. */
const HASHED_DIR = 'assets/';

/**
 * The reply for `rel` (the path under `/ui/`, without its leading `/`) from the UI folder
 * `root`:
 * - a file there: its bytes; `assets/…` cached for a year (`immutable`), others revalidated;
 * - a missing `assets/…` file or a name with an extension: 404 (a script must never get HTML);
 * - any other path (a client route such as `secrets/kv/secret/app`): `index.html`, never cached.
 * @throws CairnError 400 when `rel` leaves `root` (`..`, a backslash) or names a dot file;
 *   404 when the UI is not built (`root` has no `index.html`).
 */
export async function uiFile(root: string, rel: string): Promise<HttpResponse> {
  const segments = rel.split('/');
  if (rel.includes('\\') || segments.some((s) => s.startsWith('.'))) throw new CairnError('bad_request', 'invalid UI path');
  const base = resolve(root);
  const file = resolve(base, rel);
  // resolve() has already folded any `..`; this is the belt to the check above.
  if (file !== base && !file.startsWith(base + sep)) throw new CairnError('bad_request', 'invalid UI path');
  const hashed = rel.startsWith(HASHED_DIR);
  const type = TYPES[extname(file)];
  if (rel !== '' && type) {
    const bytes = await readOrUndefined(file);
    if (bytes) {
      const cache = hashed ? 'public, max-age=31536000, immutable' : 'no-cache';
      return { status: 200, headers: { ...UI_SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': cache }, body: bytes };
    }
  }
  if (hashed || extname(rel) !== '') throw new CairnError('not_found', `no UI file "${rel}"`);
  const index = await readOrUndefined(join(base, 'index.html'));
  if (!index) throw new CairnError('not_found', 'the web UI is not built (run `npm run build`)');
  return { status: 200, headers: { ...UI_SECURITY_HEADERS, 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache' }, body: index };
}

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
