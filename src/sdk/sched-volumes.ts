/**
 * The CSI group of `SchedClient` (spec 002 "CSI volumes"; reference/sched.md §4): volumes,
 * external volumes, snapshots and plugins, as `SchedClient.csi`:
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);
 * await sched.csi.createVolume({ ID: 'db', PluginID: 'hostpath', RequestedCapacityMin: 10 * 2 ** 30,
 *   RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }] });
 * for (let token: string | undefined = ''; token !== undefined; ) {
 *   const page = await sched.csi.listVolumes({ perPage: 100, nextToken: token, filter: 'Schedulable == true' });
 *   console.log(page.data.map((v) => v.ID));
 *   token = page.nextToken;
 * }
 * await sched.csi.deleteVolume('db', { secrets: { password: 'x' } });
 * ```
 *
 * Every method rejects with `SchedApiError` on a status ≥ 400 and `SchedConnectionError` when
 * the service cannot be reached; the secret-taking ones throw a plain `Error` before sending
 * when a secret cannot travel in `X-Sched-CSI-Secrets`.
 *
 * @module
 */
import { BLOCKING_EXTRA_MS, type SchedCall } from './sched-call.js';
import type {
  SchedExternalVolume,
  SchedPage,
  SchedPlugin,
  SchedPluginPageOptions,
  SchedPluginStub,
  SchedSnapshot,
  SchedSnapshotCreated,
  SchedSnapshotSpec,
  SchedVolume,
  SchedVolumeListOptions,
  SchedVolumeOptions,
  SchedVolumeSpec,
  SchedVolumeStub,
  SchedVolumeWriteReply,
} from './sched-csi-types.js';
import type { SchedQueryOptions, SchedRead } from './sched-types.js';

const seg = encodeURIComponent;

/** The request header that carries CSI secrets (spec 002). */
export const SCHED_CSI_SECRETS_HEADER = 'x-sched-csi-secrets';

/**
 * `secrets` as the `X-Sched-CSI-Secrets` value `k=v,k2=v2` (reference/sched.md §4.2: split on
 * `,`, then on the first `=`; no escaping), or undefined when there are none.
 * @throws Error `invalid CSI secret "<k>": …` for an empty key, a key holding `=` or `,`, or a
 *   value holding `,` (they cannot travel in the header).
 */
export function encodeCsiSecrets(secrets: Readonly<Record<string, string>> | undefined): string | undefined {
  const entries = Object.entries(secrets ?? {});
  if (entries.length === 0) return undefined;
  for (const [k, v] of entries) {
    if (k === '' || /[=,]/.test(k)) throw new Error(`invalid CSI secret "${k}": a key must be non-empty and hold no "=" or ","`);
    if (String(v).includes(',')) throw new Error(`invalid CSI secret "${k}": a value cannot hold "," (X-Sched-CSI-Secrets is k=v,k2=v2)`);
  }
  return entries.map(([k, v]) => `${k}=${v}`).join(',');
}

/** The secrets header for `secrets`, or none. @throws Error as {@link encodeCsiSecrets}. */
function secretsHeaders(secrets: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  const value = encodeCsiSecrets(secrets);
  return value === undefined ? undefined : { [SCHED_CSI_SECRETS_HEADER]: value };
}

/** The first value of header `name`, or undefined. */
function header(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `''` → undefined: the end of a plugin-paged list. */
const tokenOrEnd = (t: string | null | undefined): string | undefined => (t ? t : undefined);

/** The CSI methods of `SchedClient.csi`; each is one call through the client's `call` (token, namespace and region from its options). */
export class SchedCsiApi {
  /** `call` reaches the service (`SchedClient.call`). */
  constructor(private readonly call: SchedCall) {}

  // ---- volumes ------------------------------------------------------------------------

  /**
   * `GET /v1/volumes?type=csi` (`namespace:csi-list-volume`): one page of volume stubs in
   * `<namespace>.<ID>` order. Without `perPage` every volume comes in one page; `nextToken` is
   * the `X-Sched-NextToken` of the reply (undefined on the last page).
   * @throws SchedApiError 400 for a bad `filter`, prefix or `perPage`; 403.
   */
  async listVolumes(o: SchedVolumeListOptions = {}): Promise<SchedPage<SchedVolumeStub[]>> {
    const r = await this.call<SchedVolumeStub[] | null>('GET', '/volumes', {
      query: {
        type: o.type ?? 'csi',
        namespace: o.namespace,
        node_id: o.nodeId || undefined,
        plugin_id: o.pluginId || undefined,
        prefix: o.prefix || undefined,
        per_page: o.perPage || undefined,
        next_token: o.nextToken || undefined,
        filter: o.filter || undefined,
        index: o.index,
        wait: o.wait,
      },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data ?? [], index: r.index, nextToken: tokenOrEnd(header(r.headers, 'x-sched-nexttoken')) };
  }

  /**
   * `GET /v1/volume/csi/:id` (`namespace:csi-read-volume`): the volume, without secrets.
   * @throws SchedApiError 404 `volume not found`; 403.
   */
  async readVolume(id: string, o: SchedQueryOptions & SchedVolumeOptions = {}): Promise<SchedRead<SchedVolume>> {
    const r = await this.call<SchedVolume>('GET', `/volume/csi/${seg(id)}`, {
      query: { namespace: o.namespace, index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data, index: r.index };
  }

  /**
   * `PUT /v1/volume/csi/:id` (`namespace:csi-write-volume`): registers a volume that already
   * exists in its plugin (`ExternalID`), or updates a registered one (secrets replaced,
   * capacity expanded). Replies with the volume as read.
   * @throws SchedApiError 400 `validation: …` and the other texts of the server; 404 when the
   *   plugin does not know the external volume; 403.
   */
  async registerVolume(spec: SchedVolumeSpec, o: SchedVolumeOptions = {}): Promise<SchedVolumeWriteReply> {
    return (await this.call<SchedVolumeWriteReply>('PUT', `/volume/csi/${seg(spec.ID)}`, { query: { namespace: o.namespace }, body: { Volumes: [spec] } }))
      .data;
  }

  /**
   * `PUT /v1/volume/csi/:id/create` (`namespace:csi-write-volume`; the plugin needs
   * `CREATE_DELETE_VOLUME`): creates the volume in its plugin and registers it; a repeat
   * reconciles the registered one. The reply's volume has `ExternalID` and `Capacity` (bytes).
   * @throws SchedApiError 400 `validation: …`, an unknown plugin or a missing capability; 403.
   */
  async createVolume(spec: SchedVolumeSpec, o: SchedVolumeOptions = {}): Promise<SchedVolumeWriteReply> {
    return (
      await this.call<SchedVolumeWriteReply>('PUT', `/volume/csi/${seg(spec.ID)}/create`, { query: { namespace: o.namespace }, body: { Volumes: [spec] } })
    ).data;
  }

  /**
   * `DELETE /v1/volume/csi/:id[?force=true]`: forgets the volume, leaving it in the plugin.
   * `force` first drops the claims of terminal allocations; it never detaches.
   * @throws SchedApiError 404 `volume not found: <id>`; 409 `volume in use: <id>`; 403.
   */
  async deregisterVolume(id: string, o: SchedVolumeOptions & { readonly force?: boolean } = {}): Promise<void> {
    await this.call('DELETE', `/volume/csi/${seg(id)}`, { query: { namespace: o.namespace, force: o.force ? 'true' : undefined } });
  }

  /**
   * `DELETE /v1/volume/csi/:id/delete`: deletes the volume in its plugin (with the stored
   * secrets under `secrets`, sent as `X-Sched-CSI-Secrets`) and deregisters it.
   * @throws Error for a secret the header cannot carry; SchedApiError 404; 409 in use; 400
   *   without `CREATE_DELETE_VOLUME`; 403.
   */
  async deleteVolume(id: string, o: SchedVolumeOptions & { readonly secrets?: Readonly<Record<string, string>> } = {}): Promise<void> {
    await this.call('DELETE', `/volume/csi/${seg(id)}/delete`, { query: { namespace: o.namespace }, headers: secretsHeaders(o.secrets) });
  }

  /**
   * `DELETE /v1/volume/csi/:id/detach?node=<node ID>`: unpublishes the volume from that
   * scheduler node and drops the node's past claims.
   * @throws SchedApiError 404; 409 while an allocation on the node claims it; 400 without `node`; 403.
   */
  async detachVolume(id: string, node: string, o: SchedVolumeOptions = {}): Promise<void> {
    await this.call('DELETE', `/volume/csi/${seg(id)}/detach`, { query: { namespace: o.namespace, node } });
  }

  /**
   * `GET /v1/volumes/external?plugin_id=&per_page=&next_token=` (the plugin needs
   * `LIST_VOLUMES`): one page of the volumes the plugin holds, registered or not; `nextToken`
   * is the plugin's token (the body's `NextToken`), undefined on the last page.
   * @throws SchedApiError 400 (unknown plugin, missing `perPage`, capability); 403.
   */
  async listExternalVolumes(o: SchedPluginPageOptions): Promise<SchedPage<SchedExternalVolume[]>> {
    const r = await this.call<{ Volumes: SchedExternalVolume[] | null; NextToken?: string }>('GET', '/volumes/external', {
      query: { namespace: o.namespace, plugin_id: o.pluginId, per_page: o.perPage, next_token: o.nextToken || undefined },
    });
    return { data: r.data.Volumes ?? [], index: r.index, nextToken: tokenOrEnd(r.data.NextToken) };
  }

  // ---- snapshots ----------------------------------------------------------------------

  /**
   * `POST /v1/volumes/snapshot` (`namespace:csi-write-volume`; the plugin needs
   * `CREATE_DELETE_SNAPSHOT`): snapshots of registered volumes, all or none.
   * @throws SchedApiError 400 (`no such volume "<v>"`, a missing name, capability); 403.
   */
  async createSnapshot(specs: SchedSnapshotSpec | readonly SchedSnapshotSpec[], o: SchedVolumeOptions = {}): Promise<SchedSnapshotCreated[]> {
    const Snapshots = Array.isArray(specs) ? specs : [specs];
    const r = await this.call<{ Snapshots: SchedSnapshotCreated[] | null }>('POST', '/volumes/snapshot', {
      query: { namespace: o.namespace },
      body: { Snapshots },
    });
    return r.data.Snapshots ?? [];
  }

  /**
   * `GET /v1/volumes/snapshot?plugin_id=&per_page=&next_token=` (the plugin needs
   * `LIST_SNAPSHOTS`), `secrets` in `X-Sched-CSI-Secrets`: one page of the plugin's snapshots;
   * `nextToken` is the plugin's, undefined on the last page.
   * @throws Error for a secret the header cannot carry; SchedApiError 400; 403.
   */
  async listSnapshots(o: SchedPluginPageOptions & { readonly secrets?: Readonly<Record<string, string>> }): Promise<SchedPage<SchedSnapshot[]>> {
    const r = await this.call<{ Snapshots: SchedSnapshot[] | null; NextToken?: string }>('GET', '/volumes/snapshot', {
      query: { namespace: o.namespace, plugin_id: o.pluginId, per_page: o.perPage, next_token: o.nextToken || undefined },
      headers: secretsHeaders(o.secrets),
    });
    return { data: r.data.Snapshots ?? [], index: r.index, nextToken: tokenOrEnd(r.data.NextToken) };
  }

  /**
   * `DELETE /v1/volumes/snapshot?plugin_id=&snapshot_id=` (the plugin needs
   * `CREATE_DELETE_SNAPSHOT`), `secrets` in `X-Sched-CSI-Secrets`.
   * @throws Error for a secret the header cannot carry; SchedApiError 400; the plugin's failure; 403.
   */
  async deleteSnapshot(o: {
    readonly pluginId: string;
    readonly snapshotId: string;
    readonly secrets?: Readonly<Record<string, string>>;
    readonly namespace?: string;
  }): Promise<void> {
    await this.call('DELETE', '/volumes/snapshot', {
      query: { namespace: o.namespace, plugin_id: o.pluginId, snapshot_id: o.snapshotId },
      headers: secretsHeaders(o.secrets),
    });
  }

  // ---- plugins ------------------------------------------------------------------------

  /** `GET /v1/plugins?type=csi` (`plugin:list`): plugin stubs in ID order. @throws SchedApiError 403. */
  async listPlugins(o: SchedQueryOptions & { readonly prefix?: string } = {}): Promise<SchedRead<SchedPluginStub[]>> {
    const r = await this.call<SchedPluginStub[] | null>('GET', '/plugins', {
      query: { type: 'csi', prefix: o.prefix || undefined, index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data ?? [], index: r.index };
  }

  /**
   * `GET /v1/plugin/csi/:id` (`plugin:read`): the plugin with its controller and node
   * endpoints, their health and capabilities. @throws SchedApiError 404 `plugin not found`; 403.
   */
  async readPlugin(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedPlugin>> {
    const r = await this.call<SchedPlugin>('GET', `/plugin/csi/${seg(id)}`, {
      query: { index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data, index: r.index };
  }
}
