/**
 * Puts targets into a controller's state for tests (the target routes are another part of
 * issue 20): an org and a project when missing, a static host catalog, host, host set
 * and a `tcp` target in the contract's field names (domain/docs.ts), and roles.
 */
import { randomBytes } from 'node:crypto';
import { T, type HostCatalogDoc, type HostDoc, type HostSetDoc, type RoleDoc, type ScopeDoc, type TargetDoc } from '../../src/services/gateway/domain/docs.js';
import type { GatewayDomain } from '../../src/services/gateway/domain/domain.js';

const id = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** A project under a new org (ids returned). */
export async function putProject(d: GatewayDomain): Promise<{ orgId: string; projectId: string }> {
  const now = d.nowIso();
  const base = { created_time: now, updated_time: now, version: 1 };
  const orgId = id('o');
  const projectId = id('p');
  await d.state.txn((tx) => {
    tx.put<ScopeDoc>(T.scopes, orgId, { ...base, id: orgId, scope_id: 'global', type: 'org', name: orgId });
    tx.put<ScopeDoc>(T.scopes, projectId, { ...base, id: projectId, scope_id: orgId, type: 'project', name: projectId });
  });
  return { orgId, projectId };
}

/** Options of {@link putTarget}. */
export interface TargetFixture {
  readonly projectId: string;
  readonly port: number;
  /** Host address in a host set (default 127.0.0.1); `null`: no host set, the target's `address` instead. */
  readonly host?: string | null;
  readonly address?: string;
  readonly connectionLimit?: number;
  readonly maxSeconds?: number;
  readonly workerFilter?: string;
}

/** A target with one host in one host set (or a direct address); returns its id and the host's. */
export async function putTarget(d: GatewayDomain, o: TargetFixture): Promise<{ targetId: string; hostId?: string; hostSetId?: string }> {
  const now = d.nowIso();
  const base = { created_time: now, updated_time: now, version: 1, scope_id: o.projectId };
  const targetId = id('ttcp');
  const catalog = id('hcst');
  const hostId = id('hst');
  const setId = id('hsst');
  const withHost = o.host !== null;
  await d.state.txn((tx) => {
    if (withHost) {
      tx.put<HostCatalogDoc>(T.hostCatalogs, catalog, { ...base, id: catalog, type: 'static' });
      tx.put<HostDoc>(T.hosts, hostId, { ...base, id: hostId, type: 'static', host_catalog_id: catalog, attributes: { address: o.host ?? '127.0.0.1' } });
      tx.put<HostSetDoc>(T.hostSets, setId, { ...base, id: setId, type: 'static', host_catalog_id: catalog, host_ids: [hostId] });
    }
    tx.put<TargetDoc>(T.targets, targetId, {
      ...base,
      id: targetId,
      type: 'tcp',
      name: targetId,
      attributes: { default_port: o.port },
      session_max_seconds: o.maxSeconds ?? 28800,
      session_connection_limit: o.connectionLimit ?? -1,
      ...(o.workerFilter !== undefined && { egress_worker_filter: o.workerFilter }),
      ...(o.address !== undefined && { address: o.address }),
      host_source_ids: withHost ? [setId] : [],
      brokered_credential_source_ids: [],
    });
  });
  return withHost ? { targetId, hostId, hostSetId: setId } : { targetId };
}

/** A role in `scopeId` for `principals` with `grants` (grant scope `this`). */
export async function putRole(d: GatewayDomain, scopeId: string, principals: string[], grants: string[]): Promise<string> {
  const now = d.nowIso();
  const roleId = id('r');
  await d.state.txn((tx) =>
    tx.put<RoleDoc>(T.roles, roleId, {
      created_time: now,
      updated_time: now,
      version: 1,
      id: roleId,
      scope_id: scopeId,
      principal_ids: principals,
      grant_strings: grants,
      grant_scope_ids: ['this'],
    }),
  );
  return roleId;
}
