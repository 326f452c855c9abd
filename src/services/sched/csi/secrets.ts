/**
 * The `X-Sched-CSI-Secrets` header (spec 002 "Endpoints": volume delete, snapshot delete and
 * list; reference/sched.md §4.2): `k1=v1,k2=v2`, split on `,`, each piece on its first `=`;
 * pieces without `=` are ignored; no trimming and no escaping (values cannot hold `,`).
 *
 * @module
 */
import type { Ctx } from '../deps.js';

/** The header's pairs, or undefined when it is absent or holds none. */
export function csiSecretsHeader(ctx: Ctx): Record<string, string> | undefined {
  const raw = ctx.req.headers['x-sched-csi-secrets'];
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (!text) return undefined;
  const out: Record<string, string> = {};
  for (const piece of text.split(',')) {
    const eq = piece.indexOf('=');
    if (eq >= 0) out[piece.slice(0, eq)] = piece.slice(eq + 1);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `stored` with `over` laid on top (the header's secrets win; reference/sched.md §4.9 "Delete"). */
export function mergeSecrets(
  stored: Readonly<Record<string, string>> | null,
  over: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const merged = { ...stored, ...over };
  return Object.keys(merged).length > 0 ? merged : undefined;
}
