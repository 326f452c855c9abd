/**
 * What a job template depends on (consul-template's dependencies; reference/integration.md
 * §3): one typed descriptor per data function call, its text as the task's events show it
 * (`Missing: kv.block(app/config)`, `Missing: secret.read(secret/data/web)`; the reference
 * says `vault.read(…)`, Cairn names the secrets service `secret`), and the key under which a
 * runner keeps its fetched value in the cache a render reads (render.ts): the same text.
 *
 * Cached values, by kind (what a runner stores under {@link describeDependency}'s text):
 * - `kv.block`, `kv.get`, `kv.exists`: the key's value as a string, `null` when the key does
 *   not exist.
 * - `kv.list`: the entries under the prefix, recursively ({@link KvEntry}, `Key` the full path).
 * - `health.service`: the service's instances with their aggregated check status ({@link HealthInstance}).
 * - `catalog.services`: the catalog's service names and tags (`{ "web": ["v1"] }`).
 * - `secret.read`, `secret.write`: the secrets service's response body ({@link SecretResponse}).
 * - `secret.list`: the keys listed.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/** A dependency of a template (module doc). `dc`: another datacenter (`@dc`), absent for the local one. */
export type Dependency =
  /** `key`: renders only once the key exists. */
  | { readonly kind: 'kv.block'; readonly path: string; readonly dc?: string }
  /** `keyOrDefault`: never holds the render back. */
  | { readonly kind: 'kv.get'; readonly path: string; readonly dc?: string }
  /** `keyExists`. */
  | { readonly kind: 'kv.exists'; readonly path: string; readonly dc?: string }
  /** `ls` (top-level pairs) and `tree` (all pairs) of a prefix. */
  | { readonly kind: 'kv.list'; readonly prefix: string; readonly dc?: string }
  /** `service`: instances of `name` (with `tag`), filtered by health (`passing` by default, `any`, or a list). */
  | {
      readonly kind: 'health.service';
      readonly name: string;
      readonly tag?: string;
      readonly dc?: string;
      readonly near?: string;
      readonly filter: readonly string[];
    }
  /** `services`. */
  | { readonly kind: 'catalog.services'; readonly dc?: string }
  /** `secret "path"`. */
  | { readonly kind: 'secret.read'; readonly path: string }
  /** `secret "path" "k=v" …`: a write whose response is the value. */
  | { readonly kind: 'secret.write'; readonly path: string; readonly data: Readonly<Record<string, string>> }
  /** `secrets "path"`. */
  | { readonly kind: 'secret.list'; readonly path: string };

/** A KV entry as a runner caches it for `kv.list`: `Key` the full path, `Value` the decoded text. */
export interface KvEntry {
  readonly Key: string;
  readonly Value: string;
  readonly CreateIndex?: number;
  readonly ModifyIndex?: number;
  readonly LockIndex?: number;
  readonly Flags?: number;
  readonly Session?: string;
}

/** A service instance as a runner caches it for `health.service` (the discovery service's health entry, flattened). */
export interface HealthInstance {
  readonly Node: string;
  readonly NodeAddress: string;
  readonly NodeDatacenter?: string;
  readonly NodeMeta?: Readonly<Record<string, string>> | null;
  readonly ID: string;
  readonly Name: string;
  readonly Address: string;
  readonly Port: number;
  readonly Tags: readonly string[] | null;
  readonly ServiceMeta?: Readonly<Record<string, string>> | null;
  /** The worst of its checks: `passing`, `warning`, `critical` or `maintenance`. */
  readonly Status: string;
}

/** The secrets service's response to a read, write or list (the reference's JSON; snake_case). */
export interface SecretResponse {
  readonly request_id?: string;
  readonly lease_id?: string;
  readonly lease_duration?: number;
  readonly renewable?: boolean;
  readonly data?: Readonly<Record<string, unknown>> | null;
  readonly warnings?: readonly string[] | null;
  readonly auth?: Readonly<Record<string, unknown>> | null;
}

const at = (dc: string | undefined): string => (dc ? `@${dc}` : '');

/** A short stable digest of a write's data (consul-template shows one in `vault.write(path -> hash)`). */
function dataHash(data: Readonly<Record<string, string>>): string {
  const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 8);
}

/**
 * The text of a dependency, as events and logs show it: `kv.block(app/config)`,
 * `kv.list(app/)`, `health.service(db.web@dc2|passing)`, `catalog.services`,
 * `secret.read(secret/data/web)`, `secret.write(pki/issue/web -> 1a2b3c4d)` (a digest, never
 * the data), `secret.list(secret/metadata/)`. Also the dependency's key in a render's cache.
 */
export function describeDependency(d: Dependency): string {
  switch (d.kind) {
    case 'kv.block':
    case 'kv.get':
    case 'kv.exists':
      return `${d.kind}(${d.path}${at(d.dc)})`;
    case 'kv.list':
      return `kv.list(${d.prefix}${at(d.dc)})`;
    case 'health.service':
      return `health.service(${d.tag ? `${d.tag}.` : ''}${d.name}${at(d.dc)}${d.near ? `~${d.near}` : ''}|${d.filter.join(',')})`;
    case 'catalog.services':
      return `catalog.services${d.dc ? `(@${d.dc})` : ''}`;
    case 'secret.read':
    case 'secret.list':
      return `${d.kind}(${d.path})`;
    case 'secret.write':
      return `secret.write(${d.path} -> ${dataHash(d.data)})`;
  }
}
