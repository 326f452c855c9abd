/**
 * `POST /v1/targets/<id>:authorize-session` (reference: Boundary's targets API and
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/sessions): the
 * caller needs the target's `authorize-session` grant; the controller picks a host (the
 * body's `host_id`, else one at random from the target's host sets, else the target's
 * `address`) and the target's `default_port` (a plugin host's own port: issue 26 scope 5,
 * a discovery service instance's address and port), the workers whose name and tags match the
 * target's `egress_worker_filter` (active, reported within 15 s), makes a `pending`
 * session lasting `session_max_seconds` with `session_connection_limit` connections,
 * brokers the target's credentials (broker.ts) and replies with the session
 * authorisation as the bare item (the reference's `response_body: "item"`): `session_id`,
 * `target_id`, `scope`, `created_time`, `user_id`, `host_set_id`, `host_id`, `type`,
 * `authorization_token` (shown only here), `endpoint` (`tcp://host:port`),
 * `expiration`, `connection_limit`, `worker_info` (`[{address}]`), `credentials`.
 *
 * @module
 */
import { compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import type { KnownWorker } from '../cluster-protocol.js';
import { brokerCredentials, releaseCredentials } from './broker.js';
import { T, type HostDoc, type HostSetDoc, type TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { GatewayApiError, invalidFields, resourceNotFound } from './errors.js';
import { preferredAddress } from './endpoints.js';
import { grantOn, scopeInfo } from './resource.js';
import { targetKind } from './targets.js';
import { ok, type Grant, type RouteContext, type RouteReply } from '../route.js';

/** A worker whose last status is older than this is not offered to clients, in ms. */
const WORKER_STALE_MS = 15_000;

/** `host:port`, with brackets around an IPv6 host. */
const joinHostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** A host to connect to: its address and port, and the host and set it came from (none for a target's `address`). */
interface Endpoint {
  readonly address: string;
  readonly port: number;
  readonly hostId?: string;
  readonly hostSetId?: string;
}

/**
 * Host `host` of set `set` as an endpoint: a plugin host's own port (the target's
 * `default_port` when it has none) and the address its set's `preferred_endpoints` pick;
 * undefined when they pick none (endpoints.ts).
 */
function endpointOf(target: TargetDoc, set: HostSetDoc, host: HostDoc): Endpoint | undefined {
  const base = { hostId: host.id, hostSetId: set.id, port: target.attributes.default_port };
  if (host.type !== 'plugin') return { ...base, address: host.attributes.address };
  const preferred = set.type === 'plugin' ? (set.preferred_endpoints ?? []) : [];
  const address = preferred.length > 0 ? preferredAddress(preferred, host.ip_addresses, host.dns_names) : host.attributes.address;
  return address === undefined ? undefined : { ...base, address, port: host.attributes.port > 0 ? host.attributes.port : base.port };
}

/**
 * The endpoint of the session: the body's `host_id`, else one host at random from the
 * target's host sets (a plugin set's hosts are its discovery service's current passing
 * instances), else the target's `address`.
 * @throws 400 naming `host_id`, or when the target has no host.
 */
function pickEndpoint(d: GatewayDomain, target: TargetDoc, hostId: string | undefined): Endpoint {
  const candidates: Endpoint[] = [];
  for (const setId of target.host_source_ids) {
    const set = d.state.get<HostSetDoc>(T.hostSets, setId);
    for (const id of set?.host_ids ?? []) {
      const host = d.state.get<HostDoc>(T.hosts, id);
      const e = host && endpointOf(target, set!, host);
      if (e) candidates.push(e);
    }
  }
  if (hostId !== undefined) {
    const hit = candidates.find((c) => c.hostId === hostId);
    if (!hit) throw invalidFields({ host_id: "The host is not in any of the target's host sources." });
    return hit;
  }
  if (candidates.length > 0) return candidates[Math.floor(Math.random() * candidates.length)];
  if (target.address) return { address: target.address, port: target.attributes.default_port };
  throw new GatewayApiError('bad_request', 'FailedPrecondition', 'No host sources or address found for given target.');
}

/** Active workers reported within {@link WORKER_STALE_MS} that have a proxy listener and match `filter`. */
function pickWorkers(d: GatewayDomain, filter: string | undefined): KnownWorker[] {
  const now = d.now();
  const compiled = filter ? compileFilter(filter) : undefined;
  return [...d.workers.workers.values()].filter((w) => {
    if (w.state !== 'active' || w.address === '' || now - w.lastStatusMs > WORKER_STALE_MS) return false;
    if (!compiled) return true;
    try {
      return compiled.matches({ name: w.name, tags: w.tags });
    } catch (err) {
      if (err instanceof FilterError) return false;
      throw err;
    }
  });
}

/** The target `id`, or 404. */
function targetOf({ d, params }: RouteContext): TargetDoc {
  const doc = d.state.get<TargetDoc>(T.targets, params.id);
  if (!doc) throw resourceNotFound();
  return doc;
}

/** The access rule of `:authorize-session`: that grant on the target (404 first). */
export const authorizeSessionAccess = (ctx: RouteContext): Grant => grantOn(ctx.d, targetKind, targetOf(ctx), 'authorize-session');

/**
 * `POST /v1/targets/<id>:authorize-session`. Errors: 400 `host_id` not in the target's host
 * sets, unknown body fields, a target without hosts, a brokering failure (broker.ts); 503
 * `Unavailable` when no worker matches.
 */
export async function authorizeSession(ctx: RouteContext): Promise<RouteReply> {
  const { d, caller } = ctx;
  const target = targetOf(ctx);
  const input = ctx.input();
  const hostId = input.string('host_id') ?? undefined;
  input.done('id', 'scope_id', 'name', 'scope_name');
  const host = pickEndpoint(d, target, hostId);
  let workers: KnownWorker[];
  try {
    workers = pickWorkers(d, target.egress_worker_filter);
  } catch (err) {
    if (err instanceof FilterError)
      throw new GatewayApiError('bad_request', 'FailedPrecondition', `The target's egress_worker_filter does not parse: ${err.message}`);
    throw err;
  }
  if (workers.length === 0) throw new GatewayApiError('unavailable', 'Unavailable', 'No workers are available to handle this session.');
  const id = d.sessions.newId();
  const credentials = await brokerCredentials(d, target, id);
  // Leased credentials were recorded for the session: a session that is not stored must not keep them.
  const stored = d.sessions.create({
    id,
    scopeId: target.scope_id!,
    targetId: target.id,
    userId: caller.userId,
    authTokenId: caller.token?.id,
    hostId: host.hostId,
    hostSetId: host.hostSetId,
    address: joinHostPort(host.address, host.port),
    expirationMs: d.now() + target.session_max_seconds * 1000,
    connectionLimit: target.session_connection_limit,
    workerFilter: target.egress_worker_filter,
  });
  const { session, token } = await stored.catch(async (err: unknown) => {
    await releaseCredentials(d, id);
    throw err;
  });
  return ok({
    session_id: session.id,
    target_id: target.id,
    scope: scopeInfo(d, target.scope_id!),
    created_time: session.created_time,
    user_id: session.user_id,
    host_set_id: session.host_set_id ?? '',
    host_id: session.host_id ?? '',
    type: session.type,
    authorization_token: token,
    endpoint: session.endpoint,
    expiration: session.expiration_time,
    connection_limit: session.connection_limit,
    worker_info: workers.map((w) => ({ address: w.address })),
    credentials,
  });
}
