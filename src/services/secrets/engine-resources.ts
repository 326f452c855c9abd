/**
 * What an engine keeps open while a core is unsealed and active (the database engine's
 * connection pools, keyed by mount and connection name): made on first use, closed when
 * the engine drops it (a config changed or deleted, `reset`) and all closed when the core
 * goes (seal, step-down, shutdown), so a standby never holds a pool to a database.
 *
 * @module
 */

/** A resource an engine keeps: closing it releases what it holds (errors are logged by the caller). */
export interface EngineResource {
  close(): Promise<void>;
}

/** The open resources of one core, by key (e.g. `<mount uuid>/<config name>`). */
export class EngineResources {
  private readonly open = new Map<string, EngineResource>();
  private closed = false;

  /** The resource under `key`, made by `make` when there is none. Throws once the core has closed (its work is over). */
  get<T extends EngineResource>(key: string, make: () => T): T {
    if (this.closed) throw new Error('the secrets core has closed; the request must be retried on the active server');
    let r = this.open.get(key);
    if (!r) this.open.set(key, (r = make()));
    return r as T;
  }

  /** Closes and forgets the resource under `key`, if any. */
  async drop(key: string): Promise<void> {
    const r = this.open.get(key);
    this.open.delete(key);
    await r?.close();
  }

  /** Closes every resource (the core is going); a failure to close one does not keep the others open. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(all.map((r) => r.close()));
  }
}
