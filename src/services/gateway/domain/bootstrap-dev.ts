/**
 * `cairn dev`'s target (issue 20 scope 6, the reference's `boundary dev`): in the
 * generated project `p_1234567890`, a static host catalog `hcst_1234567890` with the host
 * `hst_1234567890` (127.0.0.1) in the host set `hsst_1234567890`, a `tcp` target
 * `ttcp_1234567890` on that host at `port` (the port of the dev secrets service: connecting
 * through the gateway then reaches an HTTP API one can try with curl), and a role in the
 * project granting the admin user `read` and `authorize-session` on it. Made when missing
 * (also on a data directory bootstrapped before they existed); the target's port follows
 * `port` at each start. Documents use the contract's field names (docs.ts).
 *
 * @module
 */
import { T, type HostCatalogDoc, type HostDoc, type HostSetDoc, type RoleDoc, type ScopeDoc, type TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { GLOBAL, PREFIX } from './ids.js';

const dev = (prefix: string) => `${prefix}_1234567890`;

/** The dev target's id. */
export const DEV_TARGET_ID = dev(PREFIX.tcpTarget);

/** Makes (or updates the port of) the dev target; see the module doc. Returns the target id. */
export async function bootstrapDevTarget(d: GatewayDomain, port: number): Promise<string> {
  const now = d.nowIso();
  const base = { created_time: now, updated_time: now, version: 1 };
  const org = dev(PREFIX.org);
  const project = dev(PREFIX.project);
  const catalog = dev(PREFIX.hostCatalog);
  const set = dev(PREFIX.hostSet);
  const host = dev(PREFIX.host);
  const role = `${PREFIX.role}_dev_target`;
  await d.state.txn((tx) => {
    if (!tx.get(T.scopes, org))
      tx.put<ScopeDoc>(T.scopes, org, {
        ...base,
        id: org,
        scope_id: GLOBAL,
        type: 'org',
        name: 'Generated org scope',
        description: 'Provides an initial org scope in Boundary',
      });
    if (!tx.get(T.scopes, project))
      tx.put<ScopeDoc>(T.scopes, project, {
        ...base,
        id: project,
        scope_id: org,
        type: 'project',
        name: 'Generated project scope',
        description: 'Provides an initial project scope in Boundary',
      });
    if (!tx.get(T.hostCatalogs, catalog)) {
      tx.put<HostCatalogDoc>(T.hostCatalogs, catalog, {
        ...base,
        id: catalog,
        scope_id: project,
        type: 'static',
        name: 'Generated static catalog',
        description: 'Provides an initial static host catalog in Boundary',
      });
    }
    if (!tx.get(T.hosts, host)) {
      tx.put<HostDoc>(T.hosts, host, {
        ...base,
        id: host,
        scope_id: project,
        type: 'static',
        host_catalog_id: catalog,
        name: 'Generated static host',
        description: 'Provides an initial static host in Boundary',
        attributes: { address: '127.0.0.1' },
      });
    }
    if (!tx.get(T.hostSets, set)) {
      tx.put<HostSetDoc>(T.hostSets, set, {
        ...base,
        id: set,
        scope_id: project,
        type: 'static',
        host_catalog_id: catalog,
        name: 'Generated static host set',
        description: 'Provides an initial static host set in Boundary',
        host_ids: [host],
      });
    }
    const cur = tx.get<TargetDoc>(T.targets, DEV_TARGET_ID);
    if (!cur) {
      tx.put<TargetDoc>(T.targets, DEV_TARGET_ID, {
        ...base,
        id: DEV_TARGET_ID,
        scope_id: project,
        type: 'tcp',
        name: 'Generated target',
        description: 'Provides an initial target: the dev secrets service on 127.0.0.1',
        attributes: { default_port: port },
        session_max_seconds: 28800,
        session_connection_limit: -1,
        host_source_ids: [set],
        brokered_credential_source_ids: [],
      });
    } else if (cur.attributes.default_port !== port) {
      const { CreateIndex: _c, ModifyIndex: _m, ...clean } = cur;
      tx.put<TargetDoc>(T.targets, DEV_TARGET_ID, {
        ...clean,
        attributes: { ...cur.attributes, default_port: port },
        version: cur.version + 1,
        updated_time: now,
      });
    }
    if (!tx.get(T.roles, role)) {
      tx.put<RoleDoc>(T.roles, role, {
        ...base,
        id: role,
        scope_id: project,
        name: 'Generated target access',
        description: 'Lets the admin user connect to the generated target',
        principal_ids: [dev(PREFIX.user)],
        grant_strings: [`ids=${DEV_TARGET_ID};actions=read,authorize-session`],
        grant_scope_ids: ['this'],
      });
    }
  });
  return DEV_TARGET_ID;
}
