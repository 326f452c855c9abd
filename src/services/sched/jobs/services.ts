/**
 * The `service`, `check` and `check_restart` blocks of a task group and of a task
 * (reference/integration.md §2; the reference's `api.Service`, `api.ServiceCheck`,
 * `api.CheckRestart` and their `Canonicalize` / `Validate`): their JSON shape, decoding the
 * job API's JSON with the reference's defaults, and the checks done at submit. The client
 * registers them into the discovery agent (client/services/).
 *
 * ```json
 * "Services": [{
 *   "Name": "web", "PortLabel": "http", "Tags": ["v1"], "Provider": "consul",
 *   "Checks": [{ "Type": "http", "Path": "/health", "Interval": 10000000000, "Timeout": 2000000000 }],
 *   "CheckRestart": { "Limit": 3, "Grace": 10000000000, "IgnoreWarnings": false }
 * }]
 * ```
 *
 * Durations are integer nanoseconds (or Go duration strings, as Go's decoder reads
 * `time.Duration` from this project's API). A service check's `CheckRestart` wins over the
 * service's, field by field (the reference's `check_restart` merge).
 *
 * @module
 */
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import type { WorkloadIdentity } from './workload-identity.js';

/** A check's restart policy (reference `CheckRestart`): `Grace` in ns; `Limit` 0 turns it off. */
export interface CheckRestart {
  readonly Limit: number;
  readonly Grace: number;
  readonly IgnoreWarnings: boolean;
}

/** A service check (reference `ServiceCheck`, the fields Cairn runs); durations in ns. */
export interface ServiceCheck {
  readonly Name: string;
  /** `http`, `tcp` or `script`. */
  readonly Type: string;
  /** Script checks: the absolute path of the command and its arguments (no shell). */
  readonly Command: string;
  readonly Args: readonly string[] | null;
  readonly Path: string;
  /** `http` (default) or `https`. */
  readonly Protocol: string;
  /** A port label or number; empty: the service's. */
  readonly PortLabel: string;
  readonly AddressMode: string;
  readonly Interval: number;
  readonly Timeout: number;
  /** `passing`, `warning`, `critical`, or empty (the discovery service's default, `critical`). */
  readonly InitialStatus: string;
  readonly Method: string;
  readonly Header: Readonly<Record<string, readonly string[]>> | null;
  readonly Body: string;
  readonly TLSSkipVerify: boolean;
  readonly SuccessBeforePassing: number;
  readonly FailuresBeforeCritical: number;
  /** Script checks of group services: the task whose directory and environment run it. */
  readonly TaskName: string;
  readonly OnUpdate: string;
  readonly CheckRestart: CheckRestart | null;
}

/** A service (reference `Service`). */
export interface Service {
  /** May hold `${…}` interpolations (`${JOB}`, `${TASKGROUP}`, `${TASK}`, `${BASE}`, the task's environment, `${node.*}`, `${attr.*}`, `${meta.*}`). */
  readonly Name: string;
  /** A port label of the group network, or a port number. */
  readonly PortLabel: string;
  readonly Tags: readonly string[] | null;
  readonly CanaryTags: readonly string[] | null;
  readonly EnableTagOverride: boolean;
  /** `auto` (default), `host`, `driver` (task services) or `alloc` (group services). */
  readonly AddressMode: string;
  readonly Address: string;
  readonly Meta: Readonly<Record<string, string>> | null;
  /** `canary_meta`: the `Meta` a canary allocation registers until promoted (null or absent: `Meta`; jobs stored before it have none). */
  readonly CanaryMeta?: Readonly<Record<string, string>> | null;
  readonly Checks: readonly ServiceCheck[] | null;
  /** The service's own `check_restart` as given (each check got it merged in). */
  readonly CheckRestart: CheckRestart | null;
  /** Group services: the task they belong to (script checks run in it). */
  readonly TaskName: string;
  /** `require_healthy` (default), `ignore_warnings` or `ignore`. */
  readonly OnUpdate: string;
  /** `consul`: the discovery service beside the client (the only provider Cairn has). */
  readonly Provider: string;
  /** The service identity added at submit (jobs/consul-identities.ts): its registration's token comes from it; absent: the client's token. */
  readonly Identity?: WorkloadIdentity | null;
}

/** The provider name of the discovery service (the reference's default provider, `consul`). */
const DEFAULT_SERVICE_PROVIDER = 'consul';
/** Default `check_restart.grace`: 1 s (reference). */
const DEFAULT_GRACE_NS = 1e9;
/** Shortest check interval and timeout: 1 s (reference `minCheckInterval`, `minCheckTimeout`). */
const MIN_CHECK_NS = 1e9;
/** Services of one group or task, and checks of one service (Cairn's input bound). */
const SERVICE_LIMITS = { services: 64, checks: 32 } as const;

const CHECK_RESTART_FIELDS = { Limit: 'int', Grace: 'duration', IgnoreWarnings: 'bool' } as const;

function decodeCheckRestart(v: unknown, path: string): Partial<CheckRestart> | null {
  if (v === undefined || v === null) return null;
  const d = decodeGoStruct(v, path, CHECK_RESTART_FIELDS);
  // Absent fields stay absent so a check's block can override only what it sets.
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(CHECK_RESTART_FIELDS)) if (fieldOf(v, k) !== undefined) out[k] = d[k];
  return out as Partial<CheckRestart>;
}

/** The reference's merge: the check's fields win over the service's; the grace default 1 s. */
function mergeRestart(service: Partial<CheckRestart> | null, check: Partial<CheckRestart> | null): CheckRestart | null {
  if (!service && !check) return null;
  return {
    Limit: check?.Limit ?? service?.Limit ?? 0,
    Grace: check?.Grace ?? service?.Grace ?? DEFAULT_GRACE_NS,
    IgnoreWarnings: check?.IgnoreWarnings ?? service?.IgnoreWarnings ?? false,
  };
}

/** `map[string][]string`. @throws 400 Go's text. */
function decodeHeader(v: unknown, path: string): Record<string, string[]> | null {
  if (v === undefined || v === null) return null;
  const bad = (got: unknown, where: string, type: string) =>
    schedBadRequest(`json: cannot unmarshal ${jsonKind(got)} into Go struct field ${where} of type ${type}`);
  if (!isObject(v)) throw bad(v, path, 'map[string][]string');
  const out: Record<string, string[]> = {};
  for (const [k, list] of Object.entries(v)) {
    if (!Array.isArray(list)) throw bad(list, `${path}.${k}`, '[]string');
    out[k] = list.map((s) => {
      if (typeof s !== 'string') throw bad(s, `${path}.${k}`, 'string');
      return s;
    });
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** A port given as a number (JSON or HCL `port = 8080`) is kept as its text, as the reference's `PortLabel`. */
function portLabel(raw: Record<string, unknown>, path: string): string {
  const v = fieldOf(raw, 'PortLabel');
  if (v === undefined) return '';
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.PortLabel of type string`);
  return v;
}

function decodeCheck(raw: unknown, path: string, serviceRestart: Partial<CheckRestart> | null, serviceOnUpdate: string): ServiceCheck {
  const d = decodeGoStruct(raw, path, {
    Name: 'string',
    Type: 'string',
    Command: 'string',
    Args: 'strings',
    Path: 'string',
    Protocol: 'string',
    AddressMode: 'string',
    Interval: 'duration',
    Timeout: 'duration',
    InitialStatus: 'string',
    Method: 'string',
    Body: 'string',
    TLSSkipVerify: 'bool',
    SuccessBeforePassing: 'int',
    FailuresBeforeCritical: 'int',
    TaskName: 'string',
    OnUpdate: 'string',
    Header: 'any',
    CheckRestart: 'any',
  });
  const type = (d.Type as string).toLowerCase();
  return {
    Name: d.Name as string,
    Type: type,
    Command: d.Command as string,
    Args: (d.Args as string[] | null)?.length ? (d.Args as string[]) : null,
    Path: d.Path as string,
    Protocol: (d.Protocol as string) || (type === 'http' ? 'http' : ''),
    PortLabel: portLabel(raw as Record<string, unknown>, path),
    AddressMode: (d.AddressMode as string) || 'host',
    Interval: d.Interval as number,
    Timeout: d.Timeout as number,
    InitialStatus: d.InitialStatus as string,
    Method: d.Method as string,
    Header: decodeHeader(d.Header, `${path}.Header`),
    Body: d.Body as string,
    TLSSkipVerify: d.TLSSkipVerify as boolean,
    SuccessBeforePassing: d.SuccessBeforePassing as number,
    FailuresBeforeCritical: d.FailuresBeforeCritical as number,
    TaskName: d.TaskName as string,
    OnUpdate: (d.OnUpdate as string) || serviceOnUpdate,
    CheckRestart: mergeRestart(serviceRestart, decodeCheckRestart(d.CheckRestart, `${path}.CheckRestart`)),
  };
}

function decodeService(raw: unknown, path: string, defaultName: string): Service {
  const d = decodeGoStruct(raw, path, {
    Name: 'string',
    Tags: 'strings',
    CanaryTags: 'strings',
    EnableTagOverride: 'bool',
    AddressMode: 'string',
    Address: 'string',
    Meta: 'map',
    CanaryMeta: 'map',
    TaskName: 'string',
    OnUpdate: 'string',
    Provider: 'string',
    Checks: 'any',
    CheckRestart: 'any',
  });
  const restart = decodeCheckRestart(d.CheckRestart, `${path}.CheckRestart`);
  const onUpdate = (d.OnUpdate as string) || 'require_healthy';
  const checks = d.Checks;
  if (checks !== null && !Array.isArray(checks))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(checks)} into Go struct field ${path}.Checks of type []api.ServiceCheck`);
  const meta = d.Meta as Record<string, string> | null;
  const canaryMeta = d.CanaryMeta as Record<string, string> | null;
  return {
    Name: (d.Name as string) || defaultName,
    PortLabel: portLabel(raw as Record<string, unknown>, path),
    Tags: (d.Tags as string[] | null)?.length ? (d.Tags as string[]) : null,
    CanaryTags: (d.CanaryTags as string[] | null)?.length ? (d.CanaryTags as string[]) : null,
    EnableTagOverride: d.EnableTagOverride as boolean,
    AddressMode: (d.AddressMode as string) || 'auto',
    Address: d.Address as string,
    Meta: meta && Object.keys(meta).length > 0 ? meta : null,
    CanaryMeta: canaryMeta && Object.keys(canaryMeta).length > 0 ? canaryMeta : null,
    Checks: checks && checks.length > 0 ? checks.filter((c) => c !== null).map((c) => decodeCheck(c, `${path}.Checks`, restart, onUpdate)) : null,
    CheckRestart: restart ? mergeRestart(restart, null) : null,
    TaskName: d.TaskName as string,
    OnUpdate: onUpdate,
    Provider: (d.Provider as string) || DEFAULT_SERVICE_PROVIDER,
  };
}

/**
 * Decodes a `Services` list of a task group or task (`path` names it in errors), with the
 * reference's defaults: `Name` `defaultName` (`<job>-<group>` for a group's services,
 * `<job>-<group>-<task>` for a task's), `Provider` `consul`, `AddressMode` `auto` (checks: `host`),
 * `OnUpdate` `require_healthy` (checks inherit the service's), HTTP checks' `Protocol`
 * `http`, `CheckRestart.Grace` 1 s, the service's `CheckRestart` merged into each check.
 * `null` for none. @throws 400 Go's decoder texts naming the field.
 */
export function decodeServices(v: unknown, path: string, defaultName: string): Service[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type []*api.Service`);
  const out = v.filter((s) => s !== null).map((s) => decodeService(s, path, defaultName));
  return out.length > 0 ? out : null;
}

/** The reference's service name rule: RFC 1123 labels of letters, digits and dashes, at most 63 characters. */
const SERVICE_NAME = /^(?:[a-z0-9]|[a-z0-9][a-z0-9-]{0,61}[a-z0-9])$/i;

/** Whether `name` (after interpolation) is a valid service name. */
export function serviceNameOk(name: string): boolean {
  return SERVICE_NAME.test(name);
}

function checkErrors(c: ServiceCheck, s: Service): string[] {
  const out: string[] = [];
  const what = `check ${JSON.stringify(c.Name || c.Type)}`;
  if (!['http', 'tcp', 'script'].includes(c.Type))
    out.push(`${what}: invalid type (${JSON.stringify(c.Type)}): must be one of http, tcp, script (grpc checks are not supported by Cairn)`);
  if (c.Interval < MIN_CHECK_NS) out.push(`${what}: interval (${c.Interval / 1e6}ms) cannot be lower than 1s`);
  if (c.Timeout < MIN_CHECK_NS) out.push(`${what}: timeout (${c.Timeout / 1e6}ms) is lower than required minimum timeout 1s`);
  if (c.Type === 'http') {
    if (c.Path === '') out.push(`${what}: http type must have http path`);
    if (!['http', 'https'].includes(c.Protocol)) out.push(`${what}: protocol must be "http" or "https", got ${JSON.stringify(c.Protocol)}`);
  }
  if ((c.Type === 'http' || c.Type === 'tcp') && c.PortLabel === '' && s.PortLabel === '')
    out.push(`${what}: ${c.Type} checks require a port (the check's or the service's)`);
  if (c.Type === 'script' && !c.Command.startsWith('/')) out.push(`${what}: script type must have a valid script path (an absolute command)`);
  if (!['', 'passing', 'warning', 'critical'].includes(c.InitialStatus))
    out.push(`${what}: invalid initial check state (${c.InitialStatus}), must be one of passing, warning, critical or empty`);
  if (!['host', 'driver', 'alloc'].includes(c.AddressMode))
    out.push(`${what}: invalid address_mode ${JSON.stringify(c.AddressMode)}: must be host, driver or alloc`);
  if (c.SuccessBeforePassing < 0) out.push(`${what}: success_before_passing must be >= 0`);
  if (c.FailuresBeforeCritical < 0) out.push(`${what}: failures_before_critical must be >= 0`);
  if (c.Type === 'script' && (c.SuccessBeforePassing > 0 || c.FailuresBeforeCritical > 0))
    out.push(`${what}: success_before_passing and failures_before_critical are not supported for script checks`);
  out.push(...onUpdateErrors(what, c.OnUpdate, c.CheckRestart));
  return out;
}

function onUpdateErrors(what: string, onUpdate: string, restart: CheckRestart | null): string[] {
  if (!['require_healthy', 'ignore_warnings', 'ignore'].includes(onUpdate))
    return [`${what}: on_update must be one of require_healthy, ignore_warnings, ignore; got ${JSON.stringify(onUpdate)}`];
  const out: string[] = [];
  if (restart && restart.Limit < 0) out.push(`${what}: check_restart limit must be >= 0`);
  if (restart && restart.Grace < 0) out.push(`${what}: check_restart grace must be >= 0`);
  if (onUpdate === 'ignore' && restart && restart.Limit > 0) out.push(`${what}: on_update value "ignore" is not compatible with check_restart`);
  if (onUpdate === 'ignore_warnings' && restart && restart.Limit > 0 && !restart.IgnoreWarnings)
    out.push(`${what}: on_update value "ignore_warnings" requires check_restart ignore_warnings value "true"`);
  return out;
}

/**
 * The submit-time problems of the `Services` of a group (`taskNames`: its tasks) or of one
 * task (`taskNames` undefined), in the reference's words where it has them: a name not valid
 * per RFC 1123 once `${…}` interpolations are set aside (checked again on the client after
 * interpolation), a provider other than `consul`, the address modes each level allows,
 * duplicate name and port pairs, and each check (type, interval and timeout ≥ 1 s, an HTTP
 * check's path, a port for HTTP and TCP checks, a script check's absolute command,
 * `initial_status`, `on_update` with `check_restart`).
 */
export function serviceErrors(services: readonly Service[] | null, taskNames?: readonly string[]): string[] {
  const out: string[] = [];
  const list = services ?? [];
  if (list.length > SERVICE_LIMITS.services) out.push(`at most ${SERVICE_LIMITS.services} services are allowed, got ${list.length}`);
  const seen = new Set<string>();
  for (const s of list) {
    const what = `service ${JSON.stringify(s.Name)}`;
    // Interpolations are resolved on the client; the rest of the name must already be valid.
    const bare = s.Name.replace(/\$\{[^}]*\}/g, 'x');
    if (s.Name !== '' && !serviceNameOk(bare))
      out.push(`Service name must be valid per RFC 1123 and can contain only alphanumeric characters or dashes: ${JSON.stringify(s.Name)}`);
    if (s.Provider !== DEFAULT_SERVICE_PROVIDER)
      out.push(`${what}: provider ${JSON.stringify(s.Provider)} is not supported: Cairn registers services in the discovery service (provider "consul")`);
    const modes = taskNames ? ['auto', 'host', 'alloc'] : ['auto', 'host', 'driver'];
    if (!modes.includes(s.AddressMode)) out.push(`${what}: invalid address_mode ${JSON.stringify(s.AddressMode)}: must be one of ${modes.join(', ')}`);
    if (s.Address !== '' && s.AddressMode !== 'auto') out.push(`${what}: cannot use custom service address with address_mode ${JSON.stringify(s.AddressMode)}`);
    if (taskNames && s.TaskName !== '' && !taskNames.includes(s.TaskName)) out.push(`${what}: task ${JSON.stringify(s.TaskName)} is not a task of the group`);
    if (!taskNames && s.TaskName !== '') out.push(`${what}: task may only be set on group services`);
    const key = `${s.Name}\0${s.PortLabel}`;
    if (seen.has(key)) out.push(`Service ${s.Name} is duplicate`);
    seen.add(key);
    if ((s.Checks?.length ?? 0) > SERVICE_LIMITS.checks) out.push(`${what}: at most ${SERVICE_LIMITS.checks} checks are allowed`);
    out.push(...onUpdateErrors(what, s.OnUpdate, s.CheckRestart));
    for (const c of s.Checks ?? []) {
      out.push(...checkErrors(c, s));
      if (c.Type === 'script' && taskNames && (c.TaskName || s.TaskName) === '' && taskNames.length !== 1)
        out.push(`${what}: script check ${JSON.stringify(c.Name)} of a group service must name its task`);
    }
  }
  return out;
}
