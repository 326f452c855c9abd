/**
 * Lease creation in the request pipeline: a handler result that asks for a lease
 * (`SecretsResult.lease`) leaves with one registered, its `lease_id`, `renewable` and
 * capped `lease_duration` in the envelope (spec 000 envelope; the reference's
 * `registerLease` in request handling).
 *
 * @module
 */
import type { SecretsRequest, SecretsResult } from '../types.js';

/** `result` with its lease registered when it asks for one; otherwise `result` itself. */
export async function withLease(req: SecretsRequest, result: SecretsResult | undefined): Promise<SecretsResult | undefined> {
  if (!result?.lease) return result;
  const granted = await req.core.leases.register({
    nsId: req.ns.entry.id,
    mount: req.mount,
    path: req.path,
    token: req.token,
    request: result.lease,
    ttlS: result.leaseDuration ?? 0,
  });
  return {
    ...result,
    leaseId: granted.leaseId,
    renewable: granted.renewable,
    leaseDuration: granted.ttlS,
    ...(granted.warnings.length ? { warnings: [...(result.warnings ?? []), ...granted.warnings] } : {}),
  };
}
