/**
 * Stored auth methods and binding rules (tables `acl-auth-methods`, keyed by `authMethodKey(ns, Name)`, and
 * `acl-binding-rules`, keyed by ID), in the reference's field names (reference/mesh.md
 * §4.1, §6.6), and Go's `Duration.String()` for `MaxTokenTTL`.
 *
 * @module
 */
import type { AuthMethodType, WireConfig } from './auth-config.js';

/** A stored auth method. */
export interface AuthMethodDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly Name: string;
  readonly Type: AuthMethodType;
  readonly DisplayName: string;
  readonly Description: string;
  /** Longest lifetime of its login tokens in **nanoseconds** (Go's `time.Duration`); 0: none. */
  readonly MaxTokenTTL: number;
  /** `''` or `local`: login tokens are local; `global`: global (primary datacenter only). */
  readonly TokenLocality: '' | 'local' | 'global';
  readonly Config: WireConfig;
}

/** A stored binding rule. An empty `Selector` matches every identity. */
export interface BindingRuleDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Selector: string;
  readonly BindType: string;
  readonly BindName: string;
}

/**
 * Go's `time.Duration.String()` of `ns` nanoseconds: `0s`, `500ms`, `1.5s`, `5m0s`,
 * `1h30m0s` (reference/mesh.md §4.1 `MaxTokenTTL` output).
 */
export function goDurationString(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let u = Math.round(Math.abs(ns));
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${fraction(u, 1e3)}µs`;
  if (u < 1e9) return `${sign}${fraction(u, 1e6)}ms`;
  const h = Math.floor(u / 3.6e12);
  u -= h * 3.6e12;
  const m = Math.floor(u / 6e10);
  u -= m * 6e10;
  return `${sign}${h > 0 ? `${h}h${m}m` : m > 0 ? `${m}m` : ''}${fraction(u, 1e9)}s`;
}

/** `v / unit` with the fraction's trailing zeros dropped (`1500, 1000` → `1.5`). */
function fraction(v: number, unit: number): string {
  const whole = Math.floor(v / unit);
  const rest = v - whole * unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
