/**
 * Which requests are for the web UI (issue 18): its own files and configuration, and the
 * API calls it proxies. Apart from ui-files.ts, which builds replies: the listener
 * (server.ts) asks this before any service sees a request.
 *
 * @module
 */

/** Where the UI's proxied requests go: `/ui/proxy/<section>/v1/…` → `<address>/v1/…` (ui.ts). */
export const UI_PROXY_PREFIX = '/ui/proxy/';

/**
 * Whether a request asks for the UI's own files or configuration: GET or HEAD of `/ui` or
 * `/ui/…` other than {@link UI_PROXY_PREFIX}. These are the same public bytes for every
 * caller, and a browser's page load cannot add headers, so a listener's
 * `require_request_header` does not apply to them (server.ts); the proxied API calls are
 * API requests and need it.
 */
export function isUiAssetRequest(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return path === '/ui' || (path.startsWith('/ui/') && !path.startsWith(UI_PROXY_PREFIX));
}
