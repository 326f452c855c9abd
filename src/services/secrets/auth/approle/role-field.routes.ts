/**
 * The per-field role paths of the AppRole method (the reference's "Read, update, or
 * delete AppRole properties"): `role/:role_name/<field>` reads (GET), sets (POST) or
 * resets to its default (DELETE) one property, so that ACL policies can delegate each
 * one. Each path is declared from one table row; the changes go through the same
 * `applyRoleFields` rules as `role/:role_name`.
 *
 * Status codes as the reference: GET of a missing role 404, POST on a missing role 404
 * (unsupported path), DELETE of a missing role 204; POST without the field 400 `missing <field>`.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import { badRequest, unsupportedPath } from '../../../../kernel/http/index.js';
import { hasField } from '../../../../kernel/util/duration.js';
import type { SecretsPath } from '../../types.js';
import { ROLE_FIELDS, applyRoleFields } from './role-fields.js';
import { roleNameOf, rolesOf, roleView } from './roles.js';

/** One per-field path: its URL segment, the role fields it takes (the first is the one named in errors), and the values DELETE restores. */
interface RoleFieldPath {
  readonly segment: string;
  readonly fields: readonly (keyof typeof ROLE_FIELDS)[];
  /** The keys of the role read (`roleView`) a GET answers with. */
  readonly view: readonly string[];
  readonly reset: Readonly<Record<string, unknown>>;
  readonly synopsis: string;
}

const ROWS: readonly RoleFieldPath[] = [
  {
    segment: 'policies',
    fields: ['token_policies', 'policies'],
    view: ['token_policies', 'policies'],
    reset: { token_policies: [] },
    synopsis: "the policies of the role's tokens",
  },
  // Not a path of the reference (its `policies` path takes `token_policies` too); kept as an alias (docs/compatibility.md).
  {
    segment: 'token-policies',
    fields: ['token_policies', 'policies'],
    view: ['token_policies', 'policies'],
    reset: { token_policies: [] },
    synopsis: "the policies of the role's tokens (alias of policies)",
  },
  {
    segment: 'secret-id-num-uses',
    fields: ['secret_id_num_uses'],
    view: ['secret_id_num_uses'],
    reset: { secret_id_num_uses: 0 },
    synopsis: 'the logins allowed per new secret ID',
  },
  { segment: 'secret-id-ttl', fields: ['secret_id_ttl'], view: ['secret_id_ttl'], reset: { secret_id_ttl: 0 }, synopsis: 'the lifetime of new secret IDs' },
  { segment: 'token-ttl', fields: ['token_ttl'], view: ['token_ttl'], reset: { token_ttl: 0 }, synopsis: "the TTL of the role's tokens" },
  {
    segment: 'token-max-ttl',
    fields: ['token_max_ttl'],
    view: ['token_max_ttl'],
    reset: { token_max_ttl: 0 },
    synopsis: "the maximum lifetime of the role's tokens",
  },
  {
    segment: 'bind-secret-id',
    fields: ['bind_secret_id'],
    view: ['bind_secret_id'],
    reset: { bind_secret_id: true },
    synopsis: 'whether login needs a secret ID',
  },
  {
    segment: 'secret-id-bound-cidrs',
    fields: ['secret_id_bound_cidrs'],
    view: ['secret_id_bound_cidrs'],
    reset: { secret_id_bound_cidrs: [] },
    synopsis: 'the CIDR blocks logins must come from',
  },
  {
    segment: 'token-bound-cidrs',
    fields: ['token_bound_cidrs'],
    view: ['token_bound_cidrs'],
    reset: { token_bound_cidrs: [] },
    synopsis: "the CIDR blocks the role's tokens may be used from",
  },
  {
    segment: 'period',
    fields: ['token_period', 'period'],
    view: ['token_period'],
    reset: { token_period: 0 },
    synopsis: "the renewal period of the role's tokens (0 = not periodic)",
  },
];

function fieldPath(row: RoleFieldPath): SecretsPath {
  const fields: Record<string, TSchema> = {};
  for (const f of row.fields) fields[f] = ROLE_FIELDS[f];
  const resetText = Object.entries(row.reset)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(', ');
  return {
    pattern: `role/:role_name/${row.segment}`,
    synopsis: `Read, set or reset ${row.synopsis}`,
    description: `The same property as \`${row.fields[0]}\` of role/<role_name>, on its own path so that policies can delegate it. DELETE resets it to its default (${resetText}).`,
    params: { role_name: 'the role name' },
    fields,
    operations: {
      read: {
        summary: `Read ${row.fields[0]}`,
        handle: async (req) => {
          const role = await rolesOf(req).get(roleNameOf(req));
          if (!role) return undefined;
          const all = roleView(role);
          return { data: Object.fromEntries(row.view.map((k) => [k, all[k]])) };
        },
      },
      update: {
        summary: `Set ${row.fields[0]}`,
        handle: async (req) => {
          const roles = rolesOf(req);
          const name = roleNameOf(req);
          if (!(await roles.get(name))) throw unsupportedPath(req.mount.path + req.path);
          if (!row.fields.some((f) => hasField(req.data, f))) throw badRequest(`missing ${row.fields[0]}`);
          const updated = await roles.updateExisting(name, (current) => applyRoleFields(req.data, current));
          if (!updated) throw unsupportedPath(req.mount.path + req.path);
          return undefined;
        },
      },
      delete: {
        summary: `Reset ${row.fields[0]} to its default`,
        handle: async (req) => {
          await rolesOf(req).updateExisting(roleNameOf(req), (current) => applyRoleFields(row.reset, current));
          return undefined;
        },
      },
    },
  };
}

/** The per-field role paths (`role/:role_name/policies`, …), one per row. */
export const roleFieldPaths: readonly SecretsPath[] = ROWS.map(fieldPath);
