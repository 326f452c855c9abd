/**
 * The discovery identities a job gets at submit (issue 27 scope 4; reference/integration.md
 * §4, the reference servers' `implicit-identities` job hook with `consul.task_identity` and
 * `consul.service_identity` set):
 *
 * - a task whose own or group's `consul` block is set gets the named identity
 *   `consul_default` (aud `cairn-discovery`, ttl 1h), unless it declares one of that name; the
 *   client logs in with it at `consul.task_auth_method` (client/discovery-token.ts);
 * - every service of provider `consul` gets a service identity named as the reference's
 *   `MakeUniqueIdentityName`: `consul-service_<service>-<port label>` for a group's,
 *   `consul-service_<task>-<service>-<port label>` for a task's (aud `cairn-discovery`, ttl 1h,
 *   `ServiceName` = the service's name, so its JWT carries `cairn_service`); the client logs in
 *   with it at `consul.service_auth_method` and registers the service with that token
 *   (client/services/). A service whose name holds `${…}` gets none (the servers cannot
 *   resolve the name the token would be bound to): the client's own token registers it.
 *
 * The reference adds them only when its servers configure the identities; Cairn adds them by
 * default, and the servers' `consul { task_identity { enabled = false } }` /
 * `service_identity { enabled = false }` turn either off (config.ts). The reference also
 * gives `consul_default` to tasks with a `template` block; Cairn only to tasks with a `consul`
 * block, so a template that reads no discovery data needs no discovery login.
 *
 * @module
 */
import type { Service } from './services.js';
import type { Job, Task, TaskGroup, WorkloadIdentity } from './types.js';

/** The task identity's name (the reference's `consul_<cluster>` for the default cluster). */
export const CONSUL_TASK_IDENTITY = 'consul_default';
/** Prefix of service identities' names (the reference's `ConsulServiceIdentityNamePrefix`). */
const SERVICE_IDENTITY_PREFIX = 'consul-service';
/** The audience of both kinds (contract: the discovery service's JWT auth method binds it). */
const DISCOVERY_AUDIENCE = 'cairn-discovery';
/** 1 h in ns: both kinds' TTL. */
const TTL_NS = 3600 * 1e9;

/** Which implicit identities the servers add (`consul { task_identity / service_identity { enabled } }`); both by default. */
export interface ConsulIdentitySettings {
  readonly task: boolean;
  readonly service: boolean;
}

/** An identity of these defaults. */
function implicit(name: string, serviceName?: string): WorkloadIdentity {
  return {
    Name: name,
    Audience: [DISCOVERY_AUDIENCE],
    ChangeMode: '',
    ChangeSignal: '',
    Env: false,
    File: false,
    Filepath: '',
    TTL: TTL_NS,
    ...(serviceName !== undefined && { ServiceName: serviceName }),
  };
}

/** The reference's `Service.MakeUniqueIdentityName`; `task` is the task of a task's service. */
function serviceIdentityName(s: Pick<Service, 'Name' | 'PortLabel' | 'TaskName'>, task?: string): string {
  const owner = task ?? s.TaskName;
  return owner ? `${SERVICE_IDENTITY_PREFIX}_${owner}-${s.Name}-${s.PortLabel}` : `${SERVICE_IDENTITY_PREFIX}_${s.Name}-${s.PortLabel}`;
}

function withServiceIdentities(services: readonly Service[] | null | undefined, task?: string): Service[] | null | undefined {
  if (!services) return services as Service[] | null | undefined;
  return services.map((s) => (s.Provider !== 'consul' || s.Name.includes('${') ? s : { ...s, Identity: implicit(serviceIdentityName(s, task), s.Name) }));
}

function withTaskIdentity(t: Task, g: TaskGroup): Task {
  if (!t.Consul && !g.Consul) return t;
  if ((t.Identities ?? []).some((i) => i.Name === CONSUL_TASK_IDENTITY)) return t;
  return { ...t, Identities: [...(t.Identities ?? []), implicit(CONSUL_TASK_IDENTITY)] };
}

/** `job` with the implicit discovery identities (module doc); unchanged where `settings` turn them off. */
export function withConsulIdentities(job: Job, settings: ConsulIdentitySettings = { task: true, service: true }): Job {
  return {
    ...job,
    TaskGroups: job.TaskGroups.map((g) => ({
      ...g,
      ...(settings.service && g.Services && { Services: withServiceIdentities(g.Services) }),
      Tasks: g.Tasks.map((t) => {
        const withTask = settings.task ? withTaskIdentity(t, g) : t;
        return settings.service && t.Services ? { ...withTask, Services: withServiceIdentities(t.Services, t.Name) } : withTask;
      }),
    })),
  };
}
