/**
 * Which format a metrics request asks for, by the rules of the reference product the
 * service follows (issue 14 item 7):
 *
 * - secrets (Vault `sys/metrics`, `metricsutil.FormatFromRequest` / `ResponseForFormat`):
 *   `?format=prometheus` → Prometheus text; no `format` → Prometheus text when `Accept`
 *   names `application/openmetrics-text` or `prometheus/telemetry`, else JSON; any other
 *   `format` → 400 `metric response format "<f>" unknown`;
 * - discovery (Consul `/v1/agent/metrics`): `?format=prometheus` or such an `Accept` →
 *   Prometheus text, anything else JSON;
 * - scheduler (Nomad `/v1/metrics`): `?format=prometheus` → Prometheus text, anything
 *   else JSON; `Accept` is not looked at.
 *
 * Prometheus output is always on: the references answer it only when configured
 * (`prometheus_retention_time` > 0, `prometheus_metrics = true`); docs/compatibility.md.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../http/errors.js';
import type { MetricsFormat } from './service-metrics.js';

/** How an endpoint picks its format; see the module doc. */
export interface FormatRules {
  /** An `Accept` naming OpenMetrics / `prometheus/telemetry` asks for Prometheus text too. */
  readonly accept: boolean;
  /** A `format` that is neither empty nor `prometheus` is a 400 instead of JSON. */
  readonly rejectUnknown: boolean;
}

/** Vault's rules (`sys/metrics`). */
export const SECRETS_FORMAT_RULES: FormatRules = { accept: true, rejectUnknown: true };
/** The `format` query parameter of a metrics endpoint ({@link metricsFormat}). */
export const METRICS_QUERY = { format: Type.String({ description: '`prometheus`: Prometheus text instead of JSON.' }) } as const;

/** Consul's rules (`agent/metrics`). */
export const MESH_FORMAT_RULES: FormatRules = { accept: true, rejectUnknown: false };
/** Nomad's rules (`/v1/metrics`). */
export const SCHED_FORMAT_RULES: FormatRules = { accept: false, rejectUnknown: false };

const PROMETHEUS_ACCEPT = /application\/openmetrics-text|prometheus\/telemetry/i;

/**
 * The format a request asks for under `rules`: `format` is its `format` query parameter
 * (null or `''` when absent), `accept` its `Accept` header.
 * @throws CairnError 400 `metric response format "<f>" unknown` under `rejectUnknown`.
 */
export function metricsFormat(format: string | null | undefined, accept: string | string[] | undefined, rules: FormatRules): MetricsFormat {
  if (format === 'prometheus') return 'prometheus';
  if (format && rules.rejectUnknown) throw badRequest(`metric response format "${format}" unknown`);
  if (rules.accept && PROMETHEUS_ACCEPT.test(String(accept ?? ''))) return 'prometheus';
  return 'json';
}
