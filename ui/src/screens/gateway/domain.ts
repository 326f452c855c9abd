/**
 * The gateway domain API as the scopes, users, roles, host catalogs and targets screens use
 * it: the scope tree
 * (`GET /v1/scopes?scope_id=global&recursive=true`), a scope's users or roles
 * (`GET /v1/{users|roles}?scope_id=`), create (`POST`, the new item bare), delete
 * (`DELETE /v1/{kind}/{id}`, 204). Lists answer `{items}`, `items` absent when empty.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';

/** A scope: `global`, an org (`o_…`, parent global) or a project (`p_…`, parent an org). */
export interface Scope {
  id: string;
  type: 'global' | 'org' | 'project';
  name?: string;
  description?: string;
  scope_id?: string;
}

/** A user or role as listed: the fields the screens show. */
export interface Item {
  id: string;
  name?: string;
  description?: string;
  scope_id: string;
  version: number;
}

/** The global scope (not in its own recursive list) followed by every org and project. */
export function useScopes() {
  return useQuery({
    queryKey: ['gateway', 'scopes'],
    queryFn: async (): Promise<Scope[]> => {
      const r = await api<{ items?: Scope[] }>('gateway', '/v1/scopes?scope_id=global&recursive=true');
      return [{ id: 'global', type: 'global', name: 'Global' }, ...(r.items ?? [])];
    },
  });
}

/** The users or roles of `scopeId`. */
export function useItems<T extends Item>(kind: 'users' | 'roles', scopeId: string) {
  return useQuery({
    queryKey: ['gateway', kind, scopeId],
    queryFn: () => api<{ items?: T[] }>('gateway', `/v1/${kind}?scope_id=${encodeURIComponent(scopeId)}`).then((r) => r.items ?? []),
  });
}

/** A scope's label in a picker: its name and ID. */
export function scopeLabel(s: Scope): string {
  return s.id === 'global' ? 'Global' : `${s.name || s.id} (${s.id})`;
}

/**
 * The items of `GET /v1/{path}` (e.g. `hosts?host_catalog_id=…`), cached under `['gateway', …key]`; disabled while `path` is '';
 * read again every `refreshMs` when given (what a sync changes).
 */
export function useList<T>(key: readonly string[], path: string, refreshMs?: number) {
  return useQuery({
    queryKey: ['gateway', ...key],
    queryFn: () => api<{ items?: T[] }>('gateway', `/v1/${path}`).then((r) => r.items ?? []),
    enabled: path !== '',
    refetchInterval: refreshMs,
  });
}

/** A host catalog, host or host set as the screens show them; `plugin` ones are a discovery service's (PluginCatalog.tsx). */
export interface HostCatalog extends Item {
  type: 'static' | 'plugin';
  plugin?: { name: string };
  attributes?: { address?: string; datacenter?: string };
  secrets_hmac?: string;
}
export interface Host extends Item {
  type: 'static' | 'plugin';
  host_catalog_id: string;
  attributes: { address: string; port?: number; node?: string; service_id?: string };
  external_id?: string;
  host_set_ids?: string[];
}
export interface HostSet extends Item {
  type: 'static' | 'plugin';
  host_catalog_id: string;
  host_ids?: string[];
  attributes?: { service_name?: string; tag?: string; filter?: string };
  preferred_endpoints?: string[];
  last_sync_time?: string;
  sync_error?: string;
}

/** Runs `fn`, reporting a failure through `setError`; true when it succeeded. */
export async function attempt(setError: (e: unknown) => void, fn: () => Promise<unknown>): Promise<boolean> {
  setError(undefined);
  try {
    await fn();
    return true;
  } catch (err) {
    setError(err);
    return false;
  }
}
