/**
 * `tcp` targets (reference: https://developer.hashicorp.com/boundary/docs/concepts/domain-model/targets;
 * handlers `targets` and `targets/tcp`): in a project scope (`ttcp_…`), with
 *
 * - `name` (required, not clearable), `attributes.default_port` (required, 1–65535) and
 *   `attributes.default_client_port` (optional, 1–65535);
 * - `session_max_seconds` (default 28800, > 0) and `session_connection_limit` (default
 *   -1 = unlimited, else > 0);
 * - `egress_worker_filter`, a bexpr expression (kernel/bexpr) over the worker; the
 *   deprecated `worker_filter` and the Enterprise `ingress_worker_filter` are refused with
 *   the reference's texts;
 * - `address` (an IP address or DNS name, no port) or host sources, not both;
 * - host sources through `:add-host-sources`/`:set-host-sources`/`:remove-host-sources`
 *   (`host_source_ids`: host sets of catalogs in the target's project), shown as
 *   `host_source_ids` and `host_sources` (`[{id, host_catalog_id}]`);
 * - brokered credential sources through `:add-credential-sources`/`:set-credential-sources`/
 *   `:remove-credential-sources` (`brokered_credential_source_ids`: credential libraries
 *   or static credentials of stores in the target's project), shown as
 *   `brokered_credential_source_ids` and `brokered_credential_sources`
 *   (`[{id, credential_store_id}]`).
 *
 * `authorize-session` is one of a target's id actions (its route is the session code's).
 *
 * @module
 */
import { compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import { addressProblemText, parseAddress } from './address.js';
import type { CollectionSpec } from './collection.js';
import { T, type CredentialDoc, type CredentialLibraryDoc, type CredentialStoreDoc, type HostCatalogDoc, type HostSetDoc, type TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { inProjectScope, requireProject } from './hosts.js';
import type { Input } from './input.js';
import { newId, PREFIX } from './ids.js';
import type { Kind } from './resource.js';

/** The reference's default `session_max_seconds` (8 hours). */
const DEFAULT_SESSION_MAX_SECONDS = 28_800;
/** The reference's default `session_connection_limit`: unlimited. */
const DEFAULT_SESSION_CONNECTION_LIMIT = -1;
const MAX_PORT = 65_535;

/** Targets: in their project, with the reference's id actions (`authorize-session` last). */
export const targetKind: Kind<TargetDoc> = {
  type: 'target',
  table: T.targets,
  idActions: [
    'no-op',
    'read',
    'update',
    'delete',
    'add-host-sources',
    'set-host-sources',
    'remove-host-sources',
    'add-credential-sources',
    'set-credential-sources',
    'remove-credential-sources',
    'authorize-session',
  ],
  where: (_d, t) => ({ scopeId: t.scope_id! }),
};

/** A port attribute: absent → undefined; 0 and > 65535 refused with the reference's texts. */
function port(attrs: Input, field: string, required: boolean): number | undefined {
  if (required && (attrs.raw[field] === undefined || attrs.raw[field] === null)) return (attrs.fail(field, 'This field is required.'), undefined);
  const v = attrs.int(field);
  if (v === 0) return (attrs.fail(field, 'This field cannot be set to zero.'), undefined);
  if (v !== undefined && v > MAX_PORT) return (attrs.fail(field, 'Value is greater than maximum port number.'), undefined);
  return v;
}

/** The checked `address`: a string sets it, `null` or empty clears it (undefined), absent or bad → no change (`false`). */
function address(input: Input): string | undefined | false {
  if (!input.has('address')) return false;
  const raw = input.string('address');
  if (raw === null || raw?.trim() === '') return undefined;
  if (typeof raw !== 'string') return false;
  const parsed = parseAddress(raw);
  if (parsed.problem) return (input.fail('address', addressProblemText(parsed.problem, 'Address does not support a port.')), false);
  return parsed.address;
}

/** The checked session limits and worker filters common to create and update (fields absent are left out). */
function settings(input: Input): Partial<Pick<TargetDoc, 'session_max_seconds' | 'session_connection_limit' | 'egress_worker_filter'>> {
  const out: { session_max_seconds?: number; session_connection_limit?: number; egress_worker_filter?: string } = {};
  const max = input.int('session_max_seconds');
  if (max === 0) input.fail('session_max_seconds', 'This must be greater than zero.');
  else if (max !== undefined) out.session_max_seconds = max;
  const rawLimit = input.raw.session_connection_limit;
  if (input.has('session_connection_limit') && Number.isInteger(rawLimit) && ((rawLimit as number) === 0 || (rawLimit as number) < -1)) {
    input.fail('session_connection_limit', 'This must be -1 (unlimited) or greater than zero.');
  } else {
    const limit = input.int('session_connection_limit', { min: -1 });
    if (limit !== undefined) out.session_connection_limit = limit;
  }
  if (input.has('worker_filter')) input.fail('worker_filter', 'This field is deprecated. Use egress_worker_filter instead.');
  if (input.has('ingress_worker_filter')) input.fail('ingress_worker_filter', 'Ingress Worker Filter field is not supported.');
  const filter = input.string('egress_worker_filter');
  if (typeof filter === 'string' && filter.trim() !== '') {
    try {
      compileFilter(filter);
      out.egress_worker_filter = filter;
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      input.fail('egress_worker_filter', `Unable to successfully parse egress filter expression: ${err.message}`);
    }
  }
  return out;
}

/** Whether host set `id` exists in a catalog of `projectId`; the problem otherwise. */
function hostSourceProblem(d: GatewayDomain, projectId: string, id: string): string | undefined {
  const set = d.state.get<HostSetDoc>(T.hostSets, id);
  if (!set) return `Host set "${id}" does not exist.`;
  const cat = d.state.get<HostCatalogDoc>(T.hostCatalogs, set.host_catalog_id);
  if (cat?.scope_id !== projectId) return `Host set "${id}" is not in a host catalog of the target's project "${projectId}".`;
  return undefined;
}

/** A brokered credential source: a credential library or a static credential, with its store. */
function credentialSource(
  d: GatewayDomain,
  id: string,
): { readonly doc: CredentialLibraryDoc | CredentialDoc; readonly store?: CredentialStoreDoc } | undefined {
  const doc = d.state.get<CredentialLibraryDoc>(T.credentialLibraries, id) ?? d.state.get<CredentialDoc>(T.credentials, id);
  return doc ? { doc, store: d.state.get<CredentialStoreDoc>(T.credentialStores, doc.credential_store_id) } : undefined;
}

function credentialSourceProblem(d: GatewayDomain, projectId: string, id: string): string | undefined {
  const src = credentialSource(d, id);
  if (!src) return `Credential source "${id}" is not a credential library or a credential.`;
  if ((src.doc.scope_id ?? src.store?.scope_id) !== projectId)
    return `Credential source "${id}" is not in a credential store of the target's project "${projectId}".`;
  return undefined;
}

type How = 'add' | 'set' | 'remove';

/** A list field changed by `how`; added ids checked by `problem`. `empty` is the reference's text for an add or remove without ids. */
function changeList(
  input: Input,
  field: string,
  { current, how, empty, problem }: { current: readonly string[]; how: How; empty: string; problem: (id: string) => string | undefined },
): string[] | undefined {
  const ids = input.strings(field);
  if (ids === undefined && input.has(field) && input.raw[field] !== null) return undefined;
  if (how !== 'set' && (ids ?? []).length === 0) return (input.fail(field, empty), undefined);
  if (how !== 'remove') {
    const bad = (ids ?? []).map(problem).find((p) => p !== undefined);
    if (bad) return (input.fail(field, bad), undefined);
  }
  if (how === 'set') return [...new Set(ids ?? [])];
  if (how === 'remove') return current.filter((x) => !ids!.includes(x));
  return [...new Set([...current, ...ids!])];
}

function hostSourcesAction(how: How) {
  return (d: GatewayDomain, input: Input, doc: TargetDoc): Partial<TargetDoc> => {
    const next = changeList(input, 'host_source_ids', {
      current: doc.host_source_ids,
      how,
      empty: 'Must be non-empty.',
      problem: (id) => hostSourceProblem(d, doc.scope_id!, id),
    });
    if (next === undefined) return {};
    if (doc.address !== undefined && how !== 'remove' && next.length > 0) {
      input.fail('host_source_ids', 'Unable to add host sources because a network address is directly assigned to the given target.');
      return {};
    }
    return { host_source_ids: next };
  };
}

function credentialSourcesAction(how: How) {
  return (d: GatewayDomain, input: Input, doc: TargetDoc): Partial<TargetDoc> => {
    const field = 'brokered_credential_source_ids';
    const next = changeList(input, field, {
      current: doc.brokered_credential_source_ids,
      how,
      empty: 'Brokered Credential Source IDs must be provided.',
      problem: (id) => credentialSourceProblem(d, doc.scope_id!, id),
    });
    return next === undefined ? {} : { brokered_credential_source_ids: next };
  };
}

/** The `host_sources` and `brokered_credential_sources` of a target item (sources no longer stored are left out). */
function sourcesView(d: GatewayDomain, t: TargetDoc): Record<string, unknown> {
  const hostSources = t.host_source_ids.flatMap((id) => {
    const s = d.state.get<HostSetDoc>(T.hostSets, id);
    return s ? [{ id, host_catalog_id: s.host_catalog_id }] : [];
  });
  const credSources = t.brokered_credential_source_ids.flatMap((id) => {
    const s = credentialSource(d, id);
    return s ? [{ id, credential_store_id: s.doc.credential_store_id }] : [];
  });
  return { host_sources: hostSources, brokered_credential_sources: credSources };
}

/** The `targets` collection: its routes are declared in routes.ts. */
export const targetCollection: CollectionSpec<TargetDoc> = {
  path: 'targets',
  kind: targetKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inProjectScope(d, 'target', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    requireProject(d, input, parentId);
    const type = input.string('type');
    if (type === undefined || type === null) input.fail('type', 'This is a required field.');
    else if (type !== 'tcp') input.fail('type', 'Unknown type provided.');
    if (typeof input.raw.name !== 'string' || input.raw.name.trim() === '') input.fail('name', 'This field is required.');
    const attrs = input.object('attributes');
    const defaultPort = port(attrs, 'default_port', true);
    const clientPort = port(attrs, 'default_client_port', false);
    const addr = address(input);
    return {
      scope_id: parentId,
      type: 'tcp',
      attributes: { default_port: defaultPort ?? 0, ...(clientPort !== undefined ? { default_client_port: clientPort } : {}) },
      session_max_seconds: DEFAULT_SESSION_MAX_SECONDS,
      session_connection_limit: DEFAULT_SESSION_CONNECTION_LIMIT,
      ...settings(input),
      ...(typeof addr === 'string' ? { address: addr } : {}),
      host_source_ids: [],
      brokered_credential_source_ids: [],
    };
  },
  update(_d, input, doc) {
    const type = input.string('type');
    if (typeof type === 'string' && type !== 'tcp') input.fail('type', 'Cannot modify the resource type.');
    if (input.has('name') && (input.raw.name === null || (typeof input.raw.name === 'string' && input.raw.name.trim() === '')))
      input.fail('name', 'This field cannot be set to empty.');
    const out: Partial<{ -readonly [K in keyof TargetDoc]: TargetDoc[K] }> = { ...settings(input) };
    // `null` clears the optional fields.
    if (input.raw.egress_worker_filter === null || (typeof input.raw.egress_worker_filter === 'string' && input.raw.egress_worker_filter.trim() === ''))
      out.egress_worker_filter = undefined;
    if (input.has('attributes')) {
      const attrs = input.object('attributes');
      const defaultPort = attrs.has('default_port') ? port(attrs, 'default_port', true) : doc.attributes.default_port;
      const clientPort = attrs.has('default_client_port') ? port(attrs, 'default_client_port', false) : doc.attributes.default_client_port;
      out.attributes = { default_port: defaultPort ?? doc.attributes.default_port, ...(clientPort !== undefined ? { default_client_port: clientPort } : {}) };
    }
    const addr = address(input);
    if (addr !== false) {
      if (typeof addr === 'string' && doc.host_source_ids.length > 0)
        input.fail('address', 'Unable to set address because one or more host sources is assigned to the given target.');
      out.address = addr;
    }
    return out;
  },
  newId: () => newId(PREFIX.tcpTarget),
  extra: (d, t) => sourcesView(d, t),
  actions: {
    'add-host-sources': hostSourcesAction('add'),
    'set-host-sources': hostSourcesAction('set'),
    'remove-host-sources': hostSourcesAction('remove'),
    'add-credential-sources': credentialSourcesAction('add'),
    'set-credential-sources': credentialSourcesAction('set'),
    'remove-credential-sources': credentialSourcesAction('remove'),
  },
};
