/**
 * One writer at a time per key: a rotation, a config change or an upsert reads the stored
 * key, changes it and writes it back, so two at once would lose one's change (two rotations
 * both making version 2). The queue lives with the core (engine-resources.ts), never in
 * module state: tests run several servers in one process.
 *
 * @module
 */
import type { SecretsCore } from '../core.js';
import type { EngineResource } from '../engine-resources.js';
import type { MountEntry } from '../mounts/table.js';

class KeyLocks implements EngineResource {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(name) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return next;
  }

  async close(): Promise<void> {}
}

/** Runs `fn` once no other change of key `name` on `mount` is running (in this core). */
export function withKeyLock<T>(core: SecretsCore, mount: MountEntry, name: string, fn: () => Promise<T>): Promise<T> {
  return core.resources.get(`${mount.uuid}/transit-key-locks`, () => new KeyLocks()).run(name, fn);
}
