/**
 * The discovery service as a task's template sources reach it: one SDK client (src/sdk
 * mesh-*) whose every call carries the task's current discovery token (`token()` at each
 * call: the consul hook may have replaced it) and, per dependency, its datacenter (`?dc=`)
 * and `?near=`.
 *
 * @module
 */
import { MeshCatalog, MeshClient, MeshHealth, MeshKv, type MeshCall } from '../../../../../sdk/mesh.js';

/** Where the discovery service is and the token to send (none: anonymous). */
export interface DiscoveryTarget {
  readonly address: string;
  readonly token: () => string | undefined;
}

/** The SDK's resource groups for one datacenter (and `near` node). */
export interface DiscoveryGroups {
  readonly kv: MeshKv;
  readonly health: MeshHealth;
  readonly catalog: MeshCatalog;
}

/** See the module doc. */
export class DiscoveryReader {
  private readonly client: MeshClient;

  /** @throws Error when `target.address` is not `http(s)://host:port` or `host:port`. */
  constructor(private readonly target: DiscoveryTarget) {
    this.client = new MeshClient({ address: target.address });
  }

  /** The resource groups whose calls go to datacenter `dc` (absent: the agent's own) sorted by distance to `near`. */
  groups(o: { readonly dc?: string; readonly near?: string } = {}): DiscoveryGroups {
    const call: MeshCall = (method, path, c = {}) =>
      this.client.call(method, path, { ...c, token: this.target.token() || undefined, query: { ...c.query, dc: o.dc, near: o.near } });
    return { kv: new MeshKv(call), health: new MeshHealth(call), catalog: new MeshCatalog(call) };
  }

  /** Closes the client's connections (the watches have aborted their requests before). */
  close(): void {
    void this.client.close().catch(() => undefined);
  }
}
