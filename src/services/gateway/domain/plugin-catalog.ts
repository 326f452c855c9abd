/**
 * The `consul` host catalog plugin (issue 26 scope 5): plugin host catalogs, as the
 * reference's dynamic host catalogs (https://developer.hashicorp.com/boundary/docs/concepts/host-discovery;
 * `type = "plugin"`, `plugin_name`, `attributes`, write-only `secrets`, host sets with
 * `attributes`, `preferred_endpoints` and `sync_interval_seconds`), whose host sets are a
 * Cairn discovery service's passing instances. The plugin is named after the API it
 * speaks, as the `vault` credential store is (docs/compatibility.md).
 *
 * - Catalog `attributes`: `address` (the discovery service, `http(s)://host:port`, required),
 *   `datacenter` (optional, `?dc=`); `secrets`: `token` (optional; an ACL token with
 *   `service:read` on the services the sets name), kept in the encrypted state, shown only
 *   as `secrets_hmac`. A create, and an update that changes them, asks the service for its
 *   service list with them: a 403 is a 400 on `secrets.token`, no answer one on
 *   `attributes.address`.
 * - Set `attributes`: `service_name` (required), `tag`, `filter` (a bexpr over the health
 *   entry, passed to the discovery service's `?filter=`); `preferred_endpoints`
 *   (endpoints.ts); `sync_interval_seconds` (1–600: the longest one blocking query waits,
 *   default 300; the sync follows changes as they happen, host-sync.ts).
 *
 * @module
 */
import { compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import { MeshApiError, MeshClient, normalizeMeshAddress } from '../../../sdk/index.js';
import { credentialHmac } from './credential-hmac.js';
import type { PluginHostCatalogDoc, PluginHostSetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { endpointProblem, MAX_PREFERRED_ENDPOINTS } from './endpoints.js';
import type { Input } from './input.js';

/** The plugin's fixed id (the reference's plugins have `pl_…` ids) and name. */
export const CONSUL_PLUGIN = { id: 'pl_consulmesh', name: 'consul', description: "Hosts from a Cairn discovery service's passing instances" } as const;

/** Default and largest `sync_interval_seconds`: the discovery service's default and largest blocking `wait`, s. */
export const DEFAULT_SYNC_INTERVAL_SECONDS = 300;
const MAX_SYNC_INTERVAL_SECONDS = 600;
/** How long the create-time check waits for the discovery service, ms. */
const CHECK_TIMEOUT_MS = 5000;

/** A client of catalog `c`'s discovery service with its token; `timeoutMs` bounds each non-blocking call. */
export function catalogClient(c: Pick<PluginHostCatalogDoc, 'attributes' | 'secrets'>, timeoutMs?: number): MeshClient {
  return new MeshClient({ address: c.attributes.address, token: c.secrets?.token, datacenter: c.attributes.datacenter, timeoutMs });
}

/** The plugin a create names by `plugin_name` or `plugin_id`; problems go to `input`. */
export function checkPlugin(input: Input): void {
  const name = input.string('plugin_name');
  const id = input.string('plugin_id');
  if (name === undefined && id === undefined) return input.fail('plugin_name', `This field is required for a plugin host catalog: "${CONSUL_PLUGIN.name}".`);
  if (typeof name === 'string' && name !== CONSUL_PLUGIN.name) input.fail('plugin_name', `Unknown plugin; the only one is "${CONSUL_PLUGIN.name}".`);
  if (typeof id === 'string' && id !== CONSUL_PLUGIN.id) input.fail('plugin_id', `Unknown plugin; the only one is "${CONSUL_PLUGIN.id}".`);
}

/** The checked catalog attributes of a create (over `current` on an update); problems go to `a`. */
export function catalogAttributes(a: Input, current?: PluginHostCatalogDoc['attributes']): PluginHostCatalogDoc['attributes'] {
  const out: { address?: string; datacenter?: string } = { ...current };
  if (!current || a.has('address')) {
    const raw = a.string('address', { required: true });
    if (typeof raw === 'string') {
      try {
        out.address = normalizeMeshAddress(raw.trim());
      } catch {
        a.fail('address', 'Must be the discovery service as http://host:port or https://host:port.');
      }
    }
  }
  if (a.has('datacenter')) {
    const dc = a.string('datacenter');
    if (dc === null || dc === '') delete out.datacenter;
    else if (typeof dc === 'string') {
      if (/^[A-Za-z0-9_-]{1,64}$/.test(dc)) out.datacenter = dc;
      else a.fail('datacenter', 'Must be 1 to 64 letters, digits, "-" or "_".');
    }
  }
  return out as PluginHostCatalogDoc['attributes'];
}

/** The checked `secrets` (`token` only): undefined when not sent; `{}` when cleared. Problems go to `input`. */
export function catalogSecrets(input: Input): PluginHostCatalogDoc['secrets'] | undefined {
  if (!input.has('secrets')) return undefined;
  if (input.raw.secrets === null) return {};
  const s = input.object('secrets');
  const token = s.string('token');
  if (typeof token === 'string' && (token.trim() === '' || token.length > 512)) s.fail('token', 'Must be 1 to 512 characters.');
  return typeof token === 'string' ? { token } : {};
}

/**
 * Asks the discovery service for its service list with the catalog's settings; a refusal
 * goes to `input` (`secrets.token` for 403, `attributes.address` when unreachable). The
 * token is never part of a message.
 */
export async function checkCatalogConnection(input: Input, c: Pick<PluginHostCatalogDoc, 'attributes' | 'secrets'>): Promise<void> {
  const client = catalogClient(c, CHECK_TIMEOUT_MS);
  try {
    await client.catalog.services();
  } catch (err) {
    const text = `The discovery service refused the catalog's settings: ${(err as Error).message}`;
    if (err instanceof MeshApiError && err.status === 403) input.object('secrets').fail('token', text);
    else if (err instanceof MeshApiError) input.object('attributes').fail('address', text);
    else input.object('attributes').fail('address', `The discovery service could not be reached: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
}

/** The view fields of a plugin catalog: `plugin` and `secrets_hmac` (when it has a token). */
export function catalogView(d: GatewayDomain, c: PluginHostCatalogDoc): Record<string, unknown> {
  const token = c.secrets?.token;
  return { plugin: CONSUL_PLUGIN, ...(token ? { secrets_hmac: credentialHmac(d, c.id, token) } : {}) };
}

type SetFields = Pick<PluginHostSetDoc, 'attributes' | 'preferred_endpoints' | 'sync_interval_seconds'>;

/** The checked set fields of a create (over `current` on an update); problems go to `input`. */
export function setFields(input: Input, current?: PluginHostSetDoc): Partial<SetFields> {
  const out: { -readonly [K in keyof SetFields]?: SetFields[K] } = {};
  if (!current || input.has('attributes')) {
    const a = input.object('attributes');
    const attrs: { service_name?: string; tag?: string; filter?: string } = { ...current?.attributes };
    if (!current || a.has('service_name')) {
      const name = a.string('service_name', { required: true });
      if (typeof name === 'string') {
        if (name.length > 255 || /[/\s]/.test(name)) a.fail('service_name', 'Must be a service name of at most 255 characters without "/" or spaces.');
        else attrs.service_name = name;
      }
    }
    for (const field of ['tag', 'filter'] as const) {
      if (!a.has(field)) continue;
      const v = a.string(field);
      if (v === null || v === '') delete attrs[field];
      else if (typeof v === 'string') attrs[field] = v;
    }
    if (attrs.tag !== undefined && attrs.tag.length > 255) a.fail('tag', 'Must be at most 255 characters.');
    if (attrs.filter !== undefined) {
      try {
        compileFilter(attrs.filter);
      } catch (err) {
        if (!(err instanceof FilterError)) throw err;
        a.fail('filter', `Unable to parse the filter: ${err.message}`);
      }
    }
    out.attributes = attrs as PluginHostSetDoc['attributes'];
  }
  if (input.has('preferred_endpoints')) {
    const list = input.raw.preferred_endpoints === null ? [] : input.strings('preferred_endpoints');
    const bad = list?.map(endpointProblem).find((p) => p !== undefined);
    if (list && list.length > MAX_PREFERRED_ENDPOINTS) input.fail('preferred_endpoints', `At most ${MAX_PREFERRED_ENDPOINTS} entries.`);
    else if (bad) input.fail('preferred_endpoints', bad);
    else if (list) out.preferred_endpoints = list.length > 0 ? list : undefined;
  }
  if (input.has('sync_interval_seconds')) {
    const raw = input.raw.sync_interval_seconds;
    if (raw === null || raw === 0) out.sync_interval_seconds = undefined;
    else if (raw === -1) input.fail('sync_interval_seconds', 'Syncing cannot be turned off: hosts follow the discovery service as it changes.');
    else {
      const v = input.int('sync_interval_seconds', { min: 1 });
      if (v !== undefined && v > MAX_SYNC_INTERVAL_SECONDS) input.fail('sync_interval_seconds', `Must be at most ${MAX_SYNC_INTERVAL_SECONDS}.`);
      else if (v !== undefined) out.sync_interval_seconds = v;
    }
  }
  return out;
}
