/**
 * The agent's service and check definitions (reference/mesh-catalog.md "Agent"; the
 * reference's `ServiceDefinition`, `CheckDefinition`, `CheckType.Validate`): parsing the
 * bodies of `PUT /agent/service/register` and `/agent/check/register` into the documents
 * the agent keeps and syncs, plus how each check runs.
 *
 * Script, gRPC, H2PING, Docker and alias checks are not run (script checks are off in the
 * reference unless enabled, which Cairn does not offer): a definition naming one is a 400.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { bool, duration, int, object, str, type Input } from '../catalog/fields.js';
import { checkStatus, headerMap, parseService } from '../catalog/register.js';
import type { CheckDefinition, CheckDoc, ServiceDoc } from '../catalog/model.js';

/** Shortest check interval in ms; shorter ones are raised to it (the reference's `MinInterval`). */
const MIN_INTERVAL_MS = 1_000;
/** Default HTTP/TCP check timeout in ms. */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Consecutive results an HTTP/TCP check needs before its status turns (the reference's
 * `SuccessBeforePassing`, `FailuresBeforeCritical`; 0 or 1: at once). Absent in the
 * definitions an agent kept before it knew them (persist.ts): at once.
 */
interface Thresholds {
  readonly successBeforePassing?: number;
  readonly failuresBeforeCritical?: number;
}

/** How a check runs; undefined for a check only updated by hand (none in the reference: every agent check has one). */
export type CheckRun =
  | { readonly kind: 'ttl'; readonly ttlMs: number }
  | ({
      readonly kind: 'http';
      readonly url: string;
      readonly method: string;
      readonly header: Readonly<Record<string, readonly string[]>>;
      readonly body: string;
      readonly tlsSkipVerify: boolean;
      readonly intervalMs: number;
      readonly timeoutMs: number;
    } & Thresholds)
  | ({ readonly kind: 'tcp'; readonly address: string; readonly intervalMs: number; readonly timeoutMs: number } & Thresholds);

/** A check the agent owns: its document (node and service filled by the agent) and how it runs. */
export interface LocalCheck {
  readonly doc: CheckDoc;
  readonly run?: CheckRun;
  /** `DeregisterCriticalServiceAfter` in ms (0: never). */
  readonly deregisterAfterMs: number;
}

/**
 * The timeout of an HTTP/TCP check (the reference: `Timeout` when set and below the
 * interval, else the interval when below 10 s, else 10 s).
 */
function timeoutOf(timeoutMs: number, intervalMs: number): number {
  if (timeoutMs > 0 && timeoutMs < intervalMs) return timeoutMs;
  return Math.min(intervalMs, DEFAULT_TIMEOUT_MS);
}

/**
 * Parses one check definition (`Check`, an element of `Checks`, or the body of
 * `/agent/check/register`; `prefix` names its place in errors) for `node`.
 * `defaults` gives the ID and name when the body has none (service checks:
 * `service:<id>[:n]`, `Service '<name>' check`).
 * @throws 400 `Missing check name`, `Invalid check: …` (the reference's `CheckType.Validate`
 *   texts), a bad status, or a field's type error.
 */
export function parseCheck(c: Input, node: string, prefix: string, defaults: { id?: string; name?: string; serviceId?: string } = {}): LocalCheck {
  const name = str(c.Name, `${prefix}Name`) || defaults.name || '';
  const id = str(c.CheckID, `${prefix}CheckID`) || str(c.ID, `${prefix}ID`) || defaults.id || name;
  if (name === '') throw badRequest('Missing check name');
  for (const k of ['Args', 'ScriptArgs', 'GRPC', 'H2PING', 'DockerContainerID', 'AliasService', 'AliasNode', 'OSService', 'UDP']) {
    const v = c[k];
    if (v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)) throw badRequest(`Invalid check: ${k} checks are not supported`);
  }
  const http = str(c.HTTP, `${prefix}HTTP`);
  const tcp = str(c.TCP, `${prefix}TCP`);
  const ttlMs = duration(c.TTL, `${prefix}TTL`);
  let intervalMs = duration(c.Interval, `${prefix}Interval`);
  const timeoutMs = duration(c.Timeout, `${prefix}Timeout`);
  const deregisterAfterMs = duration(c.DeregisterCriticalServiceAfter, `${prefix}DeregisterCriticalServiceAfter`);
  let run: CheckRun;
  if (http !== '' || tcp !== '') {
    if (intervalMs <= 0) throw badRequest('Invalid check: Interval must be > 0 for Script, HTTP, H2PING, or TCP checks');
    intervalMs = Math.max(intervalMs, MIN_INTERVAL_MS);
    const thresholds = {
      successBeforePassing: int(c.SuccessBeforePassing, `${prefix}SuccessBeforePassing`),
      failuresBeforeCritical: int(c.FailuresBeforeCritical, `${prefix}FailuresBeforeCritical`),
    };
    if (thresholds.successBeforePassing < 0 || thresholds.failuresBeforeCritical < 0)
      throw badRequest('Invalid check: SuccessBeforePassing and FailuresBeforeCritical must be >= 0');
    run =
      http !== ''
        ? {
            kind: 'http',
            url: http,
            method: str(c.Method, `${prefix}Method`) || 'GET',
            header: c.Header === undefined || c.Header === null ? {} : headerMap(c.Header, `${prefix}Header`),
            body: str(c.Body, `${prefix}Body`),
            tlsSkipVerify: bool(c.TLSSkipVerify, `${prefix}TLSSkipVerify`),
            intervalMs,
            timeoutMs: timeoutOf(timeoutMs, intervalMs),
            ...thresholds,
          }
        : { kind: 'tcp', address: tcp, intervalMs, timeoutMs: timeoutOf(timeoutMs, intervalMs), ...thresholds };
    if (run.kind === 'http' && !/^https?:\/\//i.test(http))
      throw badRequest(`Invalid check: HTTP must be an http:// or https:// URL, got ${JSON.stringify(http)}`);
  } else {
    if (ttlMs <= 0) throw badRequest('Invalid check: TTL must be > 0 for TTL checks');
    run = { kind: 'ttl', ttlMs };
  }
  const definition: Record<string, unknown> = {};
  for (const k of ['HTTP', 'Method', 'Body', 'TCP', 'Interval', 'Timeout', 'TTL', 'DeregisterCriticalServiceAfter'] as const) {
    if (typeof c[k] === 'string' && c[k] !== '') definition[k] = c[k];
  }
  if (run.kind !== 'ttl' && run.successBeforePassing) definition.SuccessBeforePassing = run.successBeforePassing;
  if (run.kind !== 'ttl' && run.failuresBeforeCritical) definition.FailuresBeforeCritical = run.failuresBeforeCritical;
  if (run.kind === 'http') {
    definition.Header = run.header;
    definition.TLSSkipVerify = run.tlsSkipVerify;
  }
  const doc: CheckDoc = {
    Node: node,
    CheckID: id,
    Name: name,
    Status: checkStatus(c.Status, 'critical'),
    Notes: str(c.Notes, `${prefix}Notes`),
    Output: '',
    ServiceID: str(c.ServiceID, `${prefix}ServiceID`) || defaults.serviceId || '',
    ServiceName: '',
    ServiceTags: [],
    Type: run.kind,
    Interval: typeof c.Interval === 'string' ? c.Interval : '',
    Timeout: typeof c.Timeout === 'string' ? c.Timeout : '',
    Definition: definition as CheckDefinition,
  };
  return { doc, run, deregisterAfterMs };
}

/** A parsed `PUT /agent/service/register` body. */
export interface ServiceRegistration {
  readonly service: ServiceDoc;
  readonly checks: readonly LocalCheck[];
}

/**
 * Parses an agent service definition (`{ID, Name, Tags, Address, Port, Meta,
 * EnableTagOverride, Weights, Check, Checks}`) for `node`. Checks get the IDs
 * `service:<id>` (one) or `service:<id>:<n>` (several, from 1) and the name
 * `Service '<name>' check` unless given.
 * @throws 400 `Missing service name`, `Invalid check: …`, or a field's type error.
 */
export function parseServiceRegistration(input: Input, node: string): ServiceRegistration {
  const service = parseService(input, node, 'Name', '');
  const defs: Input[] = [];
  const one = object(input.Check, 'Check');
  if (one) defs.push(one);
  if (input.Checks !== undefined && input.Checks !== null) {
    if (!Array.isArray(input.Checks)) throw badRequest('Checks must be a list');
    input.Checks.forEach((c, i) => defs.push(object(c, `Checks[${i}]`) ?? {}));
  }
  const checks = defs.map((d, i) =>
    parseCheck(d, node, defs.length > 1 ? `Checks[${i}].` : 'Check.', {
      id: defs.length > 1 ? `service:${service.ID}:${i + 1}` : `service:${service.ID}`,
      name: `Service '${service.Service}' check`,
      serviceId: service.ID,
    }),
  );
  for (const c of checks) if (c.doc.ServiceID !== service.ID) throw badRequest(`Check ${c.doc.CheckID} names service ${c.doc.ServiceID}, not ${service.ID}`);
  return { service, checks };
}
