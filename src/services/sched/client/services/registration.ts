/**
 * An allocation's `service` blocks (jobs/services.ts) as discovery agent registrations
 * (`PUT /v1/agent/service/register` bodies; reference/integration.md §2 "How Nomad registers
 * into Consul", reference/mesh-catalog.md "Agent"):
 *
 * - service IDs in the reference's format under Cairn's prefix:
 *   `_cairn-task-<alloc ID>-<task>-<service>-<port label>` for a task's services and
 *   `_cairn-task-<alloc ID>-group-<group>-<service>-<port label>` for a group's;
 * - check IDs readable rather than the reference's opaque hash: `<service ID>-check-<n>` (n
 *   from 0 in the block's order), so an agent's log names the allocation and service;
 * - a canary allocation (`DeploymentStatus.Canary`) is registered with the block's
 *   `canary_tags` and `canary_meta` instead of `tags` and `meta` when it has them (the
 *   reference: an empty `canary_tags` means `tags`), and registered again with the normal
 *   ones once promoted (alloc-services.ts `setCanary`);
 * - `Meta` is the block's `meta` (or `canary_meta`) plus `external-source = cairn`, `cairn-alloc-id` and
 *   `cairn-node-id` (the client node that owns the registration: two clients sharing one
 *   discovery agent only ever remove their own, client/services/discovery.ts);
 * - HTTP and TCP checks become agent checks, which the agent runs; script checks become TTL
 *   checks (TTL = interval + timeout) that the client runs and reports (script-check.ts);
 * - every service also gets the client's liveness check `<service ID>-alive`: a TTL check
 *   the client passes every {@link LIVENESS_REFRESH_MS}, so the instance turns critical
 *   within {@link LIVENESS_TTL} of the client dying (`kill -9`), and the agent removes it
 *   after `deregister_critical_service_after` (default 1 m) if the client does not return;
 * - names and other string fields (the service's `name`, `port`, `tags`, `meta` values,
 *   `address`; a check's `name`, `port`, `path`, `header` values, `body`, `command`, `args`)
 *   take `${…}` interpolation (client/interpolate.ts): `${JOB}`, `${TASKGROUP}`, `${TASK}`,
 *   `${BASE}` (`<job>-<group>-<task>`), the task's environment (`${CAIRN_ALLOC_ID}`, …) and
 *   the node's `${node.*}`, `${attr.*}` and `${meta.*}` (reference/integration.md §2: the
 *   name takes "interpolation plus runtime env"; the reference's `taskenv` resolves node
 *   variables in every service field); unknown names stay as written, as in the reference.
 *
 * @module
 */
import { formatGoDuration } from '../../../../kernel/util/go-duration.js';
import type { MeshCheckDefinition, MeshServiceRegistration } from '../../../../sdk/index.js';
import { allocPort } from '../../alloc-ports.js';
import { serviceNameOk, type CheckRestart, type Service, type ServiceCheck } from '../../jobs/services.js';
import { interpolate as interpolateWith, type NodeVars } from '../interpolate.js';

/** Prefix of every registration the client makes (the reference's `_nomad-task-`). */
export const SERVICE_ID_PREFIX = '_cairn-task-';
/** The `Meta` key naming the client node that owns a registration. */
export const META_NODE = 'cairn-node-id';
/** The `Meta` key naming the allocation a registration belongs to. */
export const META_ALLOC = 'cairn-alloc-id';
/** The liveness check's TTL (Go duration) and how often the client passes it, in ms. */
const LIVENESS_TTL = '2s';
export const LIVENESS_REFRESH_MS = 500;

/** What the registrations of one allocation are built from. */
export interface RegistrationContext {
  readonly allocId: string;
  /** The part of the allocation port labels are resolved in (`AllocatedResources.Shared.Ports`). */
  readonly alloc: Parameters<typeof allocPort>[0];
  readonly jobName: string;
  readonly group: string;
  readonly nodeId: string;
  /** The address services with a port number (no label) are advertised at: the node's. */
  readonly nodeAddress: string;
  /** `DeregisterCriticalServiceAfter` of the liveness check (Go duration). */
  readonly deregisterAfter: string;
  /** The node's attributes, metadata and identity, for `${attr.*}`, `${meta.*}`, `${node.*}` (interpolate.ts). */
  readonly node: NodeVars;
  /** A canary of its deployment not yet promoted: the services' `CanaryTags` and `CanaryMeta` replace their `Tags` and `Meta` (when given). */
  readonly canary?: boolean;
}

/** A script check the client runs for a registration. */
interface ScriptCheck {
  readonly checkId: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The task whose directory and environment run it. */
  readonly task: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/** A check whose unhealthy results restart a task (`check_restart` with a limit). */
export interface RestartWatch {
  readonly checkId: string;
  readonly checkName: string;
  readonly restart: CheckRestart;
  readonly intervalMs: number;
  /** The task to restart; undefined: every task of the group. */
  readonly task: string | undefined;
}

/** One service of an allocation, ready to register. */
export interface Registration {
  readonly id: string;
  readonly body: MeshServiceRegistration;
  readonly aliveCheckId: string;
  readonly scripts: readonly ScriptCheck[];
  readonly watches: readonly RestartWatch[];
  /** The token to register and deregister it with (its service identity's, service-tokens.ts); absent: the client's. */
  readonly token?: string;
}

/** The variables of one registration (the task's environment and `JOB`, `TASKGROUP`, `TASK`, `BASE`) with the node's. */
interface Vars {
  readonly env: Readonly<Record<string, string>>;
  readonly node: NodeVars;
}

/** `text` with each `${…}` it names replaced; unknown names stay as written. */
const interpolate = (text: string, vars: Vars): string => interpolateWith(text, vars.env, vars.node);

/** The advertised address and port of `label` (a port label or number) by `mode`. @throws Error for an unknown label. */
function addressOf(ctx: RegistrationContext, label: string, mode: string): { address: string; port: number } {
  if (/^\d+$/.test(label)) return { address: ctx.nodeAddress, port: Number(label) };
  const p = allocPort(ctx.alloc, label);
  if (!p) throw new Error(`port label "${label}" is not a port of the allocation's network`);
  const address = p.hostIP || ctx.nodeAddress;
  // `alloc` advertises the mapped port (the reference: the `to` value, falling back to the host port).
  return { address, port: mode === 'alloc' && p.to > 0 ? p.to : p.value };
}

function checkDefinition(c: ServiceCheck, o: { id: string; service: Service; serviceName: string; ctx: RegistrationContext; vars: Vars }): MeshCheckDefinition {
  const { ctx, vars } = o;
  const base = {
    CheckID: o.id,
    Name: interpolate(c.Name, vars) || `service: "${o.serviceName}" check`,
    ...(c.InitialStatus !== '' && { Status: c.InitialStatus as MeshCheckDefinition['Status'] }),
  };
  if (c.Type === 'script') return { ...base, TTL: formatGoDuration(c.Interval + c.Timeout) };
  const label = interpolate(c.PortLabel || o.service.PortLabel, vars);
  const { address, port } = addressOf(ctx, label, c.AddressMode);
  const host = address.includes(':') ? `[${address}]` : address;
  const timing = { Interval: formatGoDuration(c.Interval), Timeout: formatGoDuration(c.Timeout) };
  const counts = { SuccessBeforePassing: c.SuccessBeforePassing, FailuresBeforeCritical: c.FailuresBeforeCritical };
  if (c.Type === 'tcp') return { ...base, ...timing, ...counts, TCP: `${host}:${port}` };
  const path = interpolate(c.Path, vars);
  return {
    ...base,
    ...timing,
    ...counts,
    HTTP: `${c.Protocol || 'http'}://${host}:${port}${path.startsWith('/') ? '' : '/'}${path}`,
    ...(c.Method !== '' && { Method: c.Method }),
    ...(c.Header && { Header: Object.fromEntries(Object.entries(c.Header).map(([k, vs]) => [k, vs.map((v) => interpolate(v, vars))])) }),
    ...(c.Body !== '' && { Body: interpolate(c.Body, vars) }),
    ...(c.TLSSkipVerify && { TLSSkipVerify: true }),
  };
}

/**
 * The registration of `service` of the allocation, owned by task `task` (a task's service)
 * or by the group (`task` undefined); `env` is the environment of the task the service
 * belongs to (for a group service: its `task`, else the group's first task), `scriptTask`
 * the task a script check naming none runs in (for a group service the same default).
 * @throws Error naming the service: a name invalid once interpolated, an unknown port label.
 */
export function buildRegistration(
  ctx: RegistrationContext,
  service: Service,
  o: { task: string | undefined; env: Readonly<Record<string, string>>; scriptTask: string },
): Registration {
  const taskName = o.task ?? service.TaskName;
  const env: Record<string, string> = {
    ...o.env,
    JOB: ctx.jobName,
    TASKGROUP: ctx.group,
    TASK: taskName,
    BASE: `${ctx.jobName}-${ctx.group}-${taskName}`,
  };
  const vars: Vars = { env, node: ctx.node };
  const name = interpolate(service.Name, vars);
  if (!serviceNameOk(name))
    throw new Error(`service name must be valid per RFC 1123 and can contain only alphanumeric characters or dashes: ${JSON.stringify(name)}`);
  const label = interpolate(service.PortLabel, vars);
  const owner = o.task ?? `group-${ctx.group}`;
  const id = `${SERVICE_ID_PREFIX}${ctx.allocId}-${owner}-${name}-${label}`;
  const where = label === '' ? undefined : addressOf(ctx, label, service.AddressMode);
  const checks: MeshCheckDefinition[] = [];
  const scripts: ScriptCheck[] = [];
  const watches: RestartWatch[] = [];
  for (const [i, c] of (service.Checks ?? []).entries()) {
    const checkId = `${id}-check-${i}`;
    const def = checkDefinition(c, { id: checkId, service, serviceName: name, ctx, vars });
    checks.push(def);
    const runIn = c.TaskName || taskName;
    if (c.Type === 'script') {
      scripts.push({
        checkId,
        command: interpolate(c.Command, vars),
        args: (c.Args ?? []).map((a) => interpolate(a, vars)),
        task: runIn || o.scriptTask,
        intervalMs: c.Interval / 1e6,
        timeoutMs: c.Timeout / 1e6,
      });
    }
    if (c.CheckRestart && c.CheckRestart.Limit > 0)
      watches.push({ checkId, checkName: def.Name!, restart: c.CheckRestart, intervalMs: c.Interval / 1e6, task: runIn || undefined });
  }
  const aliveCheckId = `${id}-alive`;
  checks.push({
    CheckID: aliveCheckId,
    Name: 'Cairn client alive',
    Notes: 'passed by the scheduler client that runs the allocation; critical once that client stops',
    TTL: LIVENESS_TTL,
    Status: 'passing',
    DeregisterCriticalServiceAfter: ctx.deregisterAfter,
  });
  const tags = ctx.canary && service.CanaryTags?.length ? service.CanaryTags : (service.Tags ?? []);
  const meta = ctx.canary && service.CanaryMeta && Object.keys(service.CanaryMeta).length > 0 ? service.CanaryMeta : (service.Meta ?? {});
  const body: MeshServiceRegistration = {
    ID: id,
    Name: name,
    Tags: tags.map((t) => interpolate(t, vars)),
    ...(service.Address !== '' ? { Address: interpolate(service.Address, vars) } : where && { Address: where.address }),
    ...(where && { Port: where.port }),
    Meta: {
      ...Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, interpolate(v, vars)])),
      'external-source': 'cairn',
      [META_ALLOC]: ctx.allocId,
      [META_NODE]: ctx.nodeId,
    },
    EnableTagOverride: service.EnableTagOverride,
    Checks: checks,
  };
  return { id, body, aliveCheckId, scripts, watches };
}
