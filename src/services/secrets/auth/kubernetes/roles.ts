/**
 * Roles of a `kubernetes` auth mount (reference: vault-plugin-auth-kubernetes
 * `role/:name`): which service accounts may log in (`bound_service_account_names`,
 * `bound_service_account_namespaces`; `*` and globs allowed, not both `*`), the
 * `audience` the token must carry, `alias_name_source`, and the `token_*` settings.
 * One JSON entry per role at `role/<name>`; writes merge into the current role.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, CommaList, commaList } from '../../../../kernel/http/index.js';
import type { Backend } from '../../../../kernel/store/index.js';
import { hasField } from '../../../../kernel/util/duration.js';
import { applyTokenFields, EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, tokenSettingsView, type TokenSettings } from '../token-fields.js';
import { MountEntryStore } from '../entry-store.js';
import type { SecretsRequest } from '../../types.js';

/** One stored role. */
export interface K8sRole extends TokenSettings {
  bound_service_account_names: string[];
  bound_service_account_namespaces: string[];
  /** The audience the reviewed token must have; empty = the API server's default. */
  audience: string;
  alias_name_source: 'serviceaccount_uid' | 'serviceaccount_name';
}

/** Field schemas of role writes. */
export const K8S_ROLE_FIELDS = {
  bound_service_account_names: CommaList('service account names allowed to log in; "*" = any (globs allowed)'),
  bound_service_account_namespaces: CommaList('namespaces allowed to log in; "*" = any (globs allowed)'),
  audience: Type.String({ description: 'audience the token must be valid for (sent in the TokenReview)' }),
  alias_name_source: Type.String({ description: '"serviceaccount_uid" (default) or "serviceaccount_name"; recorded as token metadata' }),
  ...TOKEN_FIELDS,
};

const EMPTY: K8sRole = {
  ...EMPTY_TOKEN_SETTINGS,
  bound_service_account_names: [],
  bound_service_account_namespaces: [],
  audience: '',
  alias_name_source: 'serviceaccount_uid',
};

/**
 * Applies a write's fields to `current` (a new role when undefined). Errors (400): empty
 * names or namespaces, both `*`, an unknown `alias_name_source`, bad `token_*` fields.
 */
export function applyK8sRoleFields(d: Readonly<Record<string, unknown>>, current: K8sRole | undefined): K8sRole {
  const r: K8sRole = { ...(current ?? EMPTY), ...applyTokenFields(d, current ?? EMPTY) };
  for (const f of ['bound_service_account_names', 'bound_service_account_namespaces'] as const) if (hasField(d, f)) r[f] = commaList(d[f]);
  if (hasField(d, 'audience')) r.audience = String(d.audience);
  if (hasField(d, 'alias_name_source')) {
    const v = String(d.alias_name_source);
    if (v !== 'serviceaccount_uid' && v !== 'serviceaccount_name') throw badRequest(`invalid alias_name_source: ${v}`);
    r.alias_name_source = v;
  }
  if (!r.bound_service_account_names.length) throw badRequest('"bound_service_account_names" can not be empty');
  if (!r.bound_service_account_namespaces.length) throw badRequest('"bound_service_account_namespaces" can not be empty');
  if (
    r.bound_service_account_names.length === 1 &&
    r.bound_service_account_names[0] === '*' &&
    r.bound_service_account_namespaces.length === 1 &&
    r.bound_service_account_namespaces[0] === '*'
  ) {
    throw badRequest('service_account_names and service_account_namespaces can not both be "*"');
  }
  return r;
}

/** The wire shape of `GET role/:name`. */
export function k8sRoleView(r: K8sRole): Record<string, unknown> {
  return {
    ...tokenSettingsView(r),
    bound_service_account_names: [...r.bound_service_account_names],
    bound_service_account_namespaces: [...r.bound_service_account_namespaces],
    audience: r.audience,
    alias_name_source: r.alias_name_source,
  };
}

/** The roles of one kubernetes mount. */
export class K8sRoleStore extends MountEntryStore<K8sRole> {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(storage: Backend, mountUuid: string) {
    super(storage, mountUuid, 'role/');
  }
}

/** The role store of the request's mount. */
export const k8sRolesOf = (req: SecretsRequest): K8sRoleStore => new K8sRoleStore(req.storage, req.mount.uuid);
