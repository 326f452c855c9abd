/**
 * The discovery service's sessions (`/v1/session/*`; reference: Consul's session API,
 * reference/mesh-catalog.md "Sessions"), reached as `MeshClient.session`:
 *
 * ```ts
 * const id = await mesh.session.create({ Name: 'leader', TTL: '15s', LockDelay: '15s' });
 * const won = await mesh.kv.put('service/web/leader', 'me', { acquire: id });   // true when held
 * await mesh.session.renew(id);                                                  // before 2 × TTL passes
 * await mesh.session.destroy(id);                                                // releases its keys
 * ```
 *
 * Reads return `{ items, index }` and take `{ index, wait }` to block until the sessions
 * change. Every method rejects with `MeshApiError` on a refusal (403, 400).
 *
 * @module
 */
import type { MeshCall } from './mesh-call.js';
import type { MeshList, MeshQueryOptions } from './mesh-types.js';

/** A session as the service shows it. */
export interface MeshSessionEntry {
  readonly ID: string;
  readonly Name: string;
  readonly Node: string;
  /** Nanoseconds. */
  readonly LockDelay: number;
  readonly Behavior: 'release' | 'delete';
  /** A Go duration (`"15s"`), `""` for none. */
  readonly TTL: string;
  readonly NodeChecks: readonly string[] | null;
  readonly ServiceChecks: readonly { readonly ID: string; readonly Namespace?: string }[] | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What {@link MeshSession.create} sends; every field is optional. */
export interface MeshSessionCreate {
  readonly Name?: string;
  /** Default: the node of the agent the client talks to. */
  readonly Node?: string;
  /** A Go duration (`"15s"`, the default; at most 60 s) or a number (below 1000: seconds, else ns). */
  readonly LockDelay?: string | number;
  /** `release` (default) or `delete`: what happens to the keys the session holds when it goes. */
  readonly Behavior?: 'release' | 'delete';
  /** A Go duration between 10s and 24h; the session goes when not renewed within twice this. */
  readonly TTL?: string;
  /** Node check IDs; default `["serfHealth"]`, `[]` for none. */
  readonly NodeChecks?: readonly string[];
  /** Service checks by `ID`. */
  readonly ServiceChecks?: readonly { readonly ID: string; readonly Namespace?: string }[];
}

/** `/v1/session/<op>/<id>` with the id escaped. */
const at = (op: string, id: string) => `/session/${op}/${encodeURIComponent(id)}`;
/** A blocking read may take its `wait` (at most 10 min) plus jitter on top of the call's limit. */
const blocking = (o: MeshQueryOptions) => ({ query: { index: o.index, wait: o.wait }, extraTimeoutMs: o.index !== undefined ? 660_000 : 0, signal: o.signal });

/** See the module doc. */
export class MeshSession {
  constructor(private readonly call: MeshCall) {}

  /**
   * `PUT /v1/session/create`: a new session's ID. @throws MeshApiError 400 for a bad field,
   * an unknown node or a critical check; 403 without `session:write` on the node.
   */
  async create(session: MeshSessionCreate = {}): Promise<string> {
    return (await this.call<{ ID: string }>('PUT', '/session/create', { body: session })).body.ID;
  }

  /** `PUT /v1/session/destroy/<id>`: ends the session (an unknown id is not an error); its keys are released or deleted. */
  async destroy(id: string): Promise<void> {
    await this.call('PUT', at('destroy', id));
  }

  /**
   * `PUT /v1/session/renew/<id>`: restarts the TTL timer; the session as stored (its `TTL`
   * may differ from the one asked). Resolves `undefined` when the session is gone (404).
   */
  async renew(id: string): Promise<MeshSessionEntry | undefined> {
    const r = await this.call<MeshSessionEntry[] | undefined>('PUT', at('renew', id), { allowNotFound: true });
    return r.body?.[0];
  }

  /** `GET /v1/session/info/<id>`: the session (undefined when unknown or not readable) and the index to block on. */
  async info(id: string, o: MeshQueryOptions = {}): Promise<{ session: MeshSessionEntry | undefined; index: number }> {
    const r = await this.call<MeshSessionEntry[] | null>('GET', at('info', id), blocking(o));
    return { session: r.body?.[0], index: r.index };
  }

  /** `GET /v1/session/node/<node>`: the sessions of a node the token may read. */
  async node(node: string, o: MeshQueryOptions = {}): Promise<MeshList<MeshSessionEntry>> {
    const r = await this.call<MeshSessionEntry[] | null>('GET', at('node', node), blocking(o));
    return { items: r.body ?? [], index: r.index };
  }

  /** `GET /v1/session/list`: every session the token may read. */
  async list(o: MeshQueryOptions = {}): Promise<MeshList<MeshSessionEntry>> {
    const r = await this.call<MeshSessionEntry[] | null>('GET', '/session/list', blocking(o));
    return { items: r.body ?? [], index: r.index };
  }
}
