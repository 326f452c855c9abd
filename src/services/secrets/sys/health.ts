/**
 * The status code of `sys/health` (spec 000 "Errors": 200, 429, 472, 473, 501, 503;
 * reference/secrets.md §3.4 for the query overrides and their precedence). Pure, so the
 * standby branches are tested before several servers exist to reach them.
 *
 * @module
 */

/** What `sys/health` distinguishes about a server. */
export interface HealthState {
  readonly initialized: boolean;
  readonly sealed: boolean;
  /** An HA standby (several servers on one storage; always false on a single server). */
  readonly standby: boolean;
  readonly performanceStandby: boolean;
  readonly drSecondary: boolean;
}

/**
 * The validated query of `sys/health`: `standbyok` / `perfstandbyok` (booleans) and the
 * `…code` overrides (integers 100–599). Absent keys take the defaults.
 */
export type HealthQuery = Readonly<Record<string, unknown>>;

/** Default status of each state, keyed by the query parameter that overrides it. */
const HEALTH_DEFAULTS = {
  activecode: 200,
  standbycode: 429,
  drsecondarycode: 472,
  performancestandbycode: 473,
  uninitcode: 501,
  sealedcode: 503,
} as const;

/**
 * The status for `s`: not initialised → `uninitcode`; sealed → `sealedcode`; DR
 * secondary → `drsecondarycode`; performance standby (also a standby) →
 * `performancestandbycode`, `activecode` with `perfstandbyok` (`standbyok` does not apply
 * to it: the reference's `sys_health.go`); standby → `standbycode` unless `standbyok`;
 * else `activecode`.
 */
export function healthCode(s: HealthState, q: HealthQuery): number {
  const code = (k: keyof typeof HEALTH_DEFAULTS) => (q[k] === undefined ? HEALTH_DEFAULTS[k] : Number(q[k]));
  if (!s.initialized) return code('uninitcode');
  if (s.sealed) return code('sealedcode');
  if (s.drSecondary) return code('drsecondarycode');
  // A performance standby is a standby too, but only `perfstandbyok` overrides its code.
  if (s.performanceStandby) return code(q.perfstandbyok === true ? 'activecode' : 'performancestandbycode');
  if (s.standby && q.standbyok !== true) return code('standbycode');
  return code('activecode');
}
