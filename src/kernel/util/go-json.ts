/**
 * Field-name matching of Go's `encoding/json`: the reference products decode request bodies
 * into Go structs, where a key matches a field whatever its case (`node`, `serviceid`,
 * `lockdelay` all fill `Node`, `ServiceID`, `LockDelay`). Clients rely on it (Debian's
 * `python3-consul` sends lower-case keys), so Cairn's handlers, which read fields by their
 * Go names, read bodies through {@link goJsonView}.
 *
 * @module
 */
import { isObject } from './is-object.js';

const handler: ProxyHandler<Record<string, unknown>> = {
  get(target, prop, receiver) {
    if (typeof prop !== 'string') return Reflect.get(target, prop, receiver);
    if (Object.hasOwn(target, prop)) return goJsonView(target[prop]);
    // As Go: any key equal ignoring case, the last one winning.
    const lower = prop.toLowerCase();
    let found: unknown;
    let hit = false;
    for (const key of Object.keys(target)) {
      if (key.toLowerCase() === lower) {
        found = target[key];
        hit = true;
      }
    }
    return hit ? goJsonView(found) : Reflect.get(target, prop, receiver);
  },
};

/**
 * A read-only view of the decoded JSON value `v` in which reading property `Name` of any
 * object, at any depth, gives the key `Name` when present, else the last key equal to it
 * ignoring case (Go's `encoding/json` struct-field matching). Keys as listed by
 * `Object.keys` / `Object.entries` / spreading stay as sent, so maps (`Meta`, `Header`)
 * keep their keys. Arrays come back as new arrays of views; other values as they are.
 * Copy what is kept out of the view (the parsers build new objects) rather than storing it.
 */
export function goJsonView<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x: unknown) => goJsonView(x)) as T;
  if (isObject(v)) return new Proxy(v, handler) as T;
  return v;
}
