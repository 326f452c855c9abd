/**
 * Grant strings (reference: Boundary's permission grant formats,
 * https://developer.hashicorp.com/boundary/docs/concepts/security/permissions/permission-grant-formats):
 * `ids=<ids>;type=<type>;actions=<actions>;output_fields=<fields>`, or the same as a JSON
 * object (`{"ids":[…],"type":…,"actions":[…],"output_fields":[…]}`). Parsing follows the
 * reference's rules and texts (`internal/perms/grants.go`): the four forms *id only*
 * (`ids=ttcp_1;actions=read`), *type only* (`type=target;actions=create,list`, collection
 * actions only), *pinned id* (`ids=hcst_1;type=host-set;actions=read`) and *wildcard id*
 * (`ids=*;type=target;actions=read` or `ids=*;type=*;actions=*`); the templates
 * `{{user.id}}` and `{{account.id}}` (also `{{.User.Id}}`, `{{.Account.Id}}`) in `ids`,
 * substituted at evaluation.
 *
 * @module
 */
import { typeOfId, type ResourceType } from './ids.js';

/** Every resource type a grant's `type=` may name (`*` = all). */
const RESOURCE_TYPES: readonly ResourceType[] = [
  'scope',
  'auth-method',
  'account',
  'user',
  'group',
  'role',
  'auth-token',
  'host-catalog',
  'host-set',
  'host',
  'target',
  'credential-store',
  'credential-library',
  'credential',
  'session',
  'worker',
];

/** The containing type of each non-top-level type (the reference's `resource.Parent`). */
const PARENT_TYPE: Readonly<Partial<Record<ResourceType, ResourceType>>> = {
  account: 'auth-method',
  'host-set': 'host-catalog',
  host: 'host-catalog',
  'credential-library': 'credential-store',
  credential: 'credential-store',
};

/** Whether `t` is a top-level type (one not contained in another resource). */
export const isTopLevel = (t: ResourceType): boolean => PARENT_TYPE[t] === undefined;

/** Whether resources of type `t` contain others (may be pinned with `type=*`). */
const hasChildTypes = (t: ResourceType): boolean => Object.values(PARENT_TYPE).includes(t);

/** Actions a grant may name (the reference's `action.Map`, the part this controller and its later resources use). */
const ACTIONS: ReadonlySet<string> = new Set([
  '*',
  'create',
  'read',
  'update',
  'delete',
  'list',
  'no-op',
  'authenticate',
  'read:self',
  'delete:self',
  'cancel:self',
  'change-password',
  'set-password',
  'add-accounts',
  'set-accounts',
  'remove-accounts',
  'add-members',
  'set-members',
  'remove-members',
  'add-principals',
  'set-principals',
  'remove-principals',
  'add-grants',
  'set-grants',
  'remove-grants',
  'add-grant-scopes',
  'set-grant-scopes',
  'remove-grant-scopes',
  'add-hosts',
  'set-hosts',
  'remove-hosts',
  'add-host-sources',
  'set-host-sources',
  'remove-host-sources',
  'add-credential-sources',
  'set-credential-sources',
  'remove-credential-sources',
  'authorize-session',
  'cancel',
]);

/** A parsed grant. */
export interface Grant {
  /** `ids=` (or the deprecated `id=`) values, templates kept as written; empty: none given. */
  readonly ids: readonly string[];
  /** `type=`; undefined when not given. */
  readonly type?: ResourceType | '*';
  readonly actions: ReadonlySet<string>;
  /** `output_fields=`; undefined when not given (all fields); `[]` given empty. */
  readonly outputFields?: readonly string[];
  /** The canonical string (the reference's `CanonicalString`: keys in a fixed order, actions sorted). */
  readonly canonical: string;
}

/** A grant string the reference would refuse; `message` is its reason. */
class GrantParseError extends Error {}

const TEMPLATES: Readonly<Record<string, string>> = {
  'user.id': 'u_dummy',
  '.User.Id': 'u_dummy',
  'account.id': 'acctpw_dummy',
  '.Account.Id': 'acctpw_dummy',
};

interface Raw {
  id?: string;
  ids?: string[];
  type?: string;
  actions?: string[];
  outputFields?: string[];
}

function parseText(text: string): Raw {
  const raw: Raw = {};
  for (const segment of text.split(';')) {
    const kv = segment.split('=');
    if (kv.length !== 2) throw new GrantParseError(`segment "${segment}" not formatted correctly, wrong number of equal signs`);
    const [k, v] = kv as [string, string];
    if (k === '') throw new GrantParseError(`segment "${segment}" not formatted correctly, missing key`);
    if (v === '' && k !== 'output_fields') throw new GrantParseError(`segment "${segment}" not formatted correctly, missing value`);
    if (k === 'id') {
      if (v.includes(',')) throw new GrantParseError('ID cannot contain a comma');
      raw.id = v;
    } else if (k === 'ids') {
      raw.ids = v.split(',');
      if (raw.ids.includes('')) throw new GrantParseError('empty ID provided');
    } else if (k === 'type') raw.type = v.toLowerCase();
    else if (k === 'actions') {
      raw.actions = v.split(',');
      if (raw.actions.includes('')) throw new GrantParseError('empty action found');
    } else if (k === 'output_fields') raw.outputFields = v === '' ? [] : v.split(',');
    // Other keys are ignored, as the reference does.
  }
  return raw;
}

function parseJson(text: string): Raw {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new GrantParseError(`unable to parse JSON grant string: ${(err as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new GrantParseError('unable to parse JSON grant string: not an object');
  const o = obj as Record<string, unknown>;
  const strings = (key: string): string[] | undefined => {
    if (o[key] === undefined) return undefined;
    if (!Array.isArray(o[key]) || !(o[key] as unknown[]).every((x) => typeof x === 'string'))
      throw new GrantParseError(`unable to interpret "${key}" as array`);
    const list = o[key] as string[];
    if (list.some((x) => /[,;=]/.test(x)))
      throw new GrantParseError(`${key === 'output_fields' ? 'output fields' : key} cannot contain a comma, semicolon or equals sign`);
    return list;
  };
  if (o.id !== undefined && typeof o.id !== 'string') throw new GrantParseError('unable to interpret "id" as string');
  if (o.type !== undefined && typeof o.type !== 'string') throw new GrantParseError('unable to interpret "type" as string');
  const raw: Raw = {
    id: o.id as string | undefined,
    ids: strings('ids'),
    type: o.type as string | undefined,
    actions: strings('actions'),
    outputFields: strings('output_fields'),
  };
  if (raw.id === '' || raw.ids?.includes('')) throw new GrantParseError('empty ID provided');
  if (raw.actions?.includes('')) throw new GrantParseError('empty action found');
  return raw;
}

/** A grant's canonical string from its parts; `deprecatedId`: written with `id=` rather than `ids=`. */
function canonical({
  ids,
  deprecatedId,
  type,
  actions,
  outputFields,
}: {
  ids: readonly string[];
  deprecatedId: boolean;
  type: string | undefined;
  actions: ReadonlySet<string>;
  outputFields: readonly string[] | undefined;
}): string {
  const parts: string[] = [];
  if (ids.length > 0) parts.push(deprecatedId ? `id=${ids[0]}` : `ids=${ids.join(',')}`);
  if (type) parts.push(`type=${type}`);
  if (actions.size > 0) parts.push(`actions=${[...actions].sort().join(',')}`);
  if (outputFields && outputFields.length > 0) parts.push(`output_fields=${[...outputFields].sort().join(',')}`);
  return parts.join(';');
}

/**
 * Parses and checks one grant string (text or JSON form).
 * @throws {GrantParseError} with the reference's reason: malformed segments, `id` with
 *   `ids`, `*` mixed with ids, ids of different types, an unknown template, type or
 *   action, `*` with other actions, no actions and no output fields, a wildcard id
 *   without a type, an id of an unknown type, create/list on an id without a type,
 *   `type=*` pinned to an id without child types, a type that is not a child of the
 *   pinned id's type, no id and no type, `type=*` without an id, a type-only grant
 *   with actions other than create and list.
 */
export function parseGrant(text: string): Grant {
  if (text.length === 0) throw new GrantParseError('missing grant string');
  const raw = text.startsWith('{') ? parseJson(text) : parseText(text);
  if (raw.id !== undefined && raw.ids !== undefined) throw new GrantParseError(`input grant string "${text}" contains both "id" and "ids" fields`);
  const ids = raw.ids ?? (raw.id !== undefined ? [raw.id] : []);
  if (ids.length > 1 && ids.includes('*'))
    throw new GrantParseError(`input grant string "${text}" contains both wildcard and non-wildcard values in "ids" field`);
  const resolved = ids.map((id) => {
    if (!id.startsWith('{{')) return id;
    const name = id.replace(/^\{\{/, '').replace(/\}\}$/, '').trim();
    const dummy = TEMPLATES[name];
    if (!dummy) throw new GrantParseError(`unknown template "${id}" in grant "${raw.id !== undefined ? 'id' : 'ids'}" value`);
    return dummy;
  });
  if (resolved.length > 1 && new Set(resolved.map((id) => typeOfId(id))).size > 1)
    throw new GrantParseError(`input grant string "${text}" contains ids of differently-typed resources`);
  let type: Grant['type'];
  if (raw.type !== undefined) {
    if (raw.type !== '*' && !RESOURCE_TYPES.includes(raw.type as ResourceType)) throw new GrantParseError(`unknown type specifier "${raw.type}"`);
    type = raw.type as Grant['type'];
  }
  const outputFields = raw.outputFields;
  const actions = new Set<string>();
  for (const a of raw.actions ?? []) {
    const lower = a.toLowerCase();
    if (!ACTIONS.has(lower)) throw new GrantParseError(`unknown action "${lower}"`);
    actions.add(lower);
  }
  if (actions.size === 0 && outputFields === undefined) throw new GrantParseError('missing actions');
  if (actions.size > 1 && actions.has('*')) throw new GrantParseError('"*" cannot be specified with other actions');
  const canon = canonical({ ids, deprecatedId: raw.id !== undefined, type, actions, outputFields });
  const collectionOnly = [...actions].every((a) => a === 'create' || a === 'list');
  for (const id of resolved.length > 0 ? resolved : ['']) {
    if (id === '*') {
      if (!type) throw new GrantParseError(`parsed grant string "${canon}" contains wildcard id and no specified type`);
    } else if (id !== '') {
      const idType = typeOfId(id);
      if (!idType) throw new GrantParseError(`parsed grant string "${canon}" contains an id "${id}" of an unknown resource type`);
      if (!type) {
        if (actions.has('create') || actions.has('list'))
          throw new GrantParseError(`parsed grant string "${canon}" contains create or list action in a format that does not allow these`);
      } else if (type === '*') {
        if (!hasChildTypes(idType)) throw new GrantParseError(`parsed grant string "${canon}" contains an id that does not support child types`);
      } else if (PARENT_TYPE[type] !== idType) {
        throw new GrantParseError(`parsed grant string "${canon}" contains type ${type} that is not a child type of the type (${idType}) of the specified id`);
      }
    } else if (!type) {
      throw new GrantParseError(`parsed grant string "${canon}" contains no id or type`);
    } else if (type === '*') {
      throw new GrantParseError(`parsed grant string "${canon}" contains wildcard type with no id value`);
    } else if (actions.size === 0 ? outputFields === undefined : !collectionOnly) {
      throw new GrantParseError(`parsed grant string "${canon}" contains non-create or non-list action in a format that only allows these`);
    } else if (actions.size > 0 && !isTopLevel(type)) {
      // The reference's final check: a collection of a contained type is only reached through its pin.
      throw new GrantParseError(`parsed grant string "${canon}" would not result in any action being authorized`);
    }
  }
  return { ids, type, actions, outputFields, canonical: canon };
}
