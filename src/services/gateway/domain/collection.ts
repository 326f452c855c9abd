/**
 * The routes of one collection, built from its description, with the reference's
 * conventions (Boundary API: https://developer.hashicorp.com/boundary/api-docs):
 *
 * - `GET /v1/<c>?<parent>=…[&recursive=true][&filter=…][&page_size=…][&list_token=…]` →
 *   a page of the items the caller may list (a scope's collections; `recursive` walks the
 *   scopes below it and leaves out the scopes where listing is not granted); `filter` is a
 *   bexpr expression over `{"item": <item>}` (`"/item/name" == "prod"`), as the
 *   reference's; pages as the reference's paginated lists (pagination.ts);
 * - `POST /v1/<c>` with the parent field → the new item (200);
 * - `GET /v1/<c>/<id>` → the item; `PATCH` → the updated item, `version` required and
 *   checked (optimistic locking); `DELETE` → 204;
 * - `POST /v1/<c>/<id>:<action>` with `version` → the changed item.
 *
 * Each operation's access rule (route.ts) is the grant the reference checks: `list` or
 * `create` on the collection in the parent scope (a recursive list filters per scope
 * instead), the operation's action on the item (after its 404).
 *
 * Single items are sent as the bare resource, as the reference's grpc-gateway mapping
 * (`response_body: "item"`) does; lists as `{"items":[…]}`.
 *
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { compileFilter, FilterError, type Filter } from '../../../kernel/bexpr/index.js';
import { StateConflict, type Txn } from '../../../kernel/store/index.js';
import { FILTERED, ok, type GatewayRoute, type Grant, type RouteContext, type RouteReply } from '../route.js';
import type { AclResource } from './acl.js';
import type { BaseDoc } from './docs.js';
import type { Caller, GatewayDomain } from './domain.js';
import { invalidFields, notUnique, resourceNotFound, versionMismatch } from './errors.js';
import type { Input } from './input.js';
import { grantOn, may, view, type Kind } from './resource.js';
import { pageRequest } from './pagination.js';

/** Query parameters of every collection list (documented; decoded by the list itself with the reference's texts). */
const LIST_FIELDS: Readonly<Record<string, TSchema>> = {
  scope_id: Type.String({ description: 'the scope to list in (auth_method_id for accounts); default global' }),
  recursive: Type.Boolean({ description: 'also list in the scopes below' }),
  filter: Type.String({ description: 'a filter expression over {"item": <item>}' }),
  page_size: Type.Integer({ minimum: 0, description: 'items per page; default and at most 1000' }),
  list_token: Type.String({ description: 'the list_token of the previous page (or of a complete listing: what changed since)' }),
};

/** A collection's description. */
export interface CollectionSpec<D extends BaseDoc> {
  /** Path segment, e.g. `users`. */
  readonly path: string;
  readonly kind: Kind<D>;
  /** The field naming the parent in lists and creates. */
  readonly parentField: 'scope_id' | 'auth_method_id' | 'host_catalog_id' | 'credential_store_id';
  /**
   * The ACL resource of the collection under `parentId` (undefined: no such parent), and
   * the scope id new items get.
   */
  collection(d: GatewayDomain, parentId: string): { readonly r: AclResource; readonly scopeId: string } | undefined;
  /** Whether `doc` belongs to the collection under `parentId` (lists). */
  inParent(doc: D, parentId: string): boolean;
  /** A new document from a checked body (without id, times and version); problems go to `input`. */
  create(
    d: GatewayDomain,
    input: Input,
    parentId: string,
    scopeId: string,
    caller: Caller,
  ): Promise<Omit<D, 'id' | 'created_time' | 'updated_time' | 'version'>>;
  /** The new id of a document. */
  newId(doc: Omit<D, 'id' | 'created_time' | 'updated_time' | 'version'>): string;
  /** The fields an update changes (besides name and description); problems go to `input`. */
  update?(d: GatewayDomain, input: Input, doc: D): Promise<Partial<D>> | Partial<D>;
  /** Custom actions: action → the changed fields; problems go to `input`. */
  readonly actions?: Readonly<Record<string, (d: GatewayDomain, input: Input, doc: D, caller: Caller) => Promise<Partial<D>> | Partial<D>>>;
  /** Runs in the deleting transaction: removes what the document owns or what refers to it. */
  onDelete?(tx: Txn, doc: D, d: GatewayDomain): void;
  /** Runs once the delete is stored, not awaited by the reply (e.g. revoking a deleted store's token elsewhere); must not throw. */
  afterDelete?(d: GatewayDomain, doc: D): void;
  /** Extra view fields for `caller`. */
  extra?(d: GatewayDomain, doc: D, caller: Caller): Record<string, unknown>;
  /** Runs in the creating transaction after the document is stored (e.g. a new scope's admin role for its creator). */
  afterCreate?(tx: Txn, doc: D, ctx: { readonly d: GatewayDomain; readonly caller: Caller; readonly query: URLSearchParams }): void;
  /** Lists with `recursive=true` walk the scope tree (scope-level collections). */
  readonly recursive: boolean;
  /** Whether `doc` is shown at all (an ended auth token is not); default: always. */
  visible?(d: GatewayDomain, doc: D): boolean;
  /** Whether lists show `doc` to `caller` (the anonymous user sees only public OIDC auth methods); default: always. */
  listable?(d: GatewayDomain, doc: D, caller: Caller): boolean;
  /** The operations served; default all. */
  readonly only?: ReadonlyArray<'list' | 'create' | 'read' | 'update' | 'delete'>;
}

type Stored<D> = D & { ModifyIndex: number; CreateIndex: number };

/** The document `id` of `spec`'s table, or 404. */
function load<D extends BaseDoc>(d: GatewayDomain, spec: CollectionSpec<D>, id: string): D {
  const doc = d.state.get<D>(spec.kind.table, id);
  if (!doc || spec.visible?.(d, doc) === false) throw resourceNotFound();
  return doc;
}

/** Runs `fn` in a transaction, answering a unique-index clash with the reference's 400. */
export async function write<R>(d: GatewayDomain, fn: (tx: Txn) => R): Promise<R> {
  try {
    return (await d.state.txn(fn)).result;
  } catch (err) {
    if (err instanceof StateConflict) throw notUnique();
    throw err;
  }
}

/** The name and description fields of a create or update (`null` clears on update). */
function common(input: Input): { name?: string | null; description?: string | null } {
  const out: { name?: string | null; description?: string | null } = {};
  if (input.has('name')) out.name = input.string('name');
  if (input.has('description')) out.description = input.string('description');
  return out;
}

/** `fields` without keys whose value is null or undefined (cleared fields are not stored). */
function compact<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/** The compiled `filter` query parameter; undefined when absent. @throws 400 naming `filter` when it does not parse. */
function filterOf(text: string | null): Filter | undefined {
  if (text === null || text.trim() === '') return undefined;
  try {
    return compileFilter(text);
  } catch (err) {
    if (err instanceof FilterError) throw invalidFields({ filter: `Unable to parse the filter: ${err.message}` });
    throw err;
  }
}

/** Whether `item` passes `filter`; an item the expression cannot be evaluated on (a missing field) does not. */
function matches(filter: Filter, item: Record<string, unknown>): boolean {
  try {
    return filter.matches({ item });
  } catch (err) {
    if (err instanceof FilterError) return false;
    throw err;
  }
}

/** The ACL grant of `action` on the document `params.id` of `spec` (404 when there is none). */
function grantOnItem<D extends BaseDoc>(spec: CollectionSpec<D>, action: string) {
  return ({ d, params }: RouteContext): Grant => grantOn(d, spec.kind, load(d, spec, params.id), action);
}

/** A list request's parameters, each checked in the reference's order (400s, the parent's 404), before the ACL. */
function listRequest<D extends BaseDoc>(spec: CollectionSpec<D>, ctx: RouteContext): ListRequest {
  // Once per request: the access rule computes it, the handler reads it.
  const known = listRequests.get(ctx);
  if (known) return known;
  const { d, req } = ctx;
  const parentId = req.query.get(spec.parentField) ?? (spec.parentField === 'scope_id' ? 'global' : '');
  const recursive = spec.recursive && /^(1|t|true)$/i.test(req.query.get('recursive') ?? '');
  if (parentId === '') throw invalidFields({ [spec.parentField]: 'This field is required.' });
  const filter = filterOf(req.query.get('filter'));
  const top = spec.collection(d, parentId);
  if (!top) throw resourceNotFound();
  const page = pageRequest(req.query, { path: spec.path, parentId, recursive, filter: req.query.get('filter') ?? '' }, d.now());
  const made = { parentId, recursive, filter, top, page };
  listRequests.set(ctx, made);
  return made;
}

/** The collection under a parent: its ACL resource and scope. */
type Collection = NonNullable<ReturnType<CollectionSpec<BaseDoc>['collection']>>;
/** A list request as {@link listRequest} reads it. */
type ListRequest = { parentId: string; recursive: boolean; filter: ReturnType<typeof filterOf>; top: Collection; page: ReturnType<typeof pageRequest> };
const listRequests = new WeakMap<RouteContext, ListRequest>();
/** A create's parent as {@link createParent} reads it. */
type CreateParent = { body: Input; parentId: string; c: Collection };
const createParents = new WeakMap<RouteContext, CreateParent>();

/**
 * A create's parent (its field, the collection under it) from the body. Without one, the
 * request is refused as the handler would refuse it: 400 naming the parent field with the
 * body's other common problems.
 */
function createParent<D extends BaseDoc>(spec: CollectionSpec<D>, ctx: RouteContext): CreateParent {
  // Once per request: the access rule computes it, the handler reads it.
  const known = createParents.get(ctx);
  if (known) return known;
  const { d, input } = ctx;
  const body = input();
  const parentId = body.string(spec.parentField, { required: true });
  const c = typeof parentId === 'string' ? spec.collection(d, parentId) : undefined;
  if (typeof parentId !== 'string' || !c) {
    if (typeof parentId === 'string') body.fail(spec.parentField, 'No such parent resource.');
    common(body);
    // Throws: the parent's problem is recorded.
    body.done();
  }
  const made = { body, parentId: parentId!, c: c! };
  createParents.set(ctx, made);
  return made;
}

/**
 * The routes of `spec`, each pattern given literally so that the table reads as the API:
 * the collection `list` (`targets`: list and create), the `item` (`targets/:id`: read,
 * update, delete) and one pattern per custom action (`targets/:id:add-host-sources`).
 * Every operation's access rule is the grant the reference checks; see the module doc.
 * @throws Error at start-up when a pattern is not the spec's, or an action of the spec is
 *   not declared (or one declared is not the spec's).
 */
export function collectionRoutes<D extends BaseDoc>(
  spec: CollectionSpec<D>,
  list: string,
  item: string,
  actionPatterns: readonly string[] = [],
): GatewayRoute[] {
  const { kind } = spec;
  if (list !== spec.path || item !== `${spec.path}/:id`) throw new Error(`collection ${spec.path}: patterns "${list}" and "${item}" are not its own`);
  const declared = actionPatterns.map((p) => p.slice(`${item}:`.length)).sort();
  if (
    actionPatterns.some((p) => !p.startsWith(`${item}:`)) ||
    declared.join() !==
      Object.keys(spec.actions ?? {})
        .sort()
        .join()
  ) {
    throw new Error(
      `collection ${spec.path}: the action patterns ${JSON.stringify(actionPatterns)} are not its actions ${JSON.stringify(Object.keys(spec.actions ?? {}))}`,
    );
  }
  const itemView = (d: GatewayDomain, caller: Caller, doc: D) => view(d, caller, { kind, doc, extra: spec.extra?.(d, doc, caller) });

  /** `list` on the parent's collection; a recursive list filters instead (the handler). */
  const listAccess = (ctx: RouteContext): Grant | typeof FILTERED => {
    const { recursive, top } = listRequest(spec, ctx);
    return recursive ? FILTERED : { resource: top.r, action: 'list' };
  };

  const listItems = async (ctx: RouteContext): Promise<RouteReply> => {
    const { d, caller } = ctx;
    const { parentId, recursive, filter, top, page } = listRequest(spec, ctx);
    const parents = recursive ? d.subtree(parentId) : [parentId];
    const items: Array<{ doc: D; view: Record<string, unknown> }> = [];
    const docs = d.state.list<D>(kind.table);
    for (const p of parents) {
      // A recursive list leaves out the scopes where listing is not granted (the access rule checked the parent of the others).
      const c = p === parentId ? top : spec.collection(d, p);
      if (!c || !may(caller, c.r, 'list')) continue;
      for (const doc of docs) {
        if (!spec.inParent(doc, p) || spec.visible?.(d, doc) === false || spec.listable?.(d, doc, caller) === false || !page.wanted(doc)) continue;
        const v = itemView(d, caller, doc);
        if ((v.authorized_actions as string[] | undefined)?.length === 0 || (filter && !matches(filter, v))) continue;
        items.push({ doc, view: v });
      }
    }
    return ok(page.reply(items));
  };

  const create = async (ctx: RouteContext): Promise<RouteReply> => {
    const { d, req, caller } = ctx;
    const { body: input, parentId, c } = createParent(spec, ctx);
    const fields = common(input);
    const built = await spec.create(d, input, parentId, c.scopeId, caller);
    input.done();
    const now = d.nowIso();
    const base = compact({ ...built, ...fields });
    const doc = { ...base, id: spec.newId(base), created_time: now, updated_time: now, version: 1 } as unknown as D;
    const stored = await write(d, (tx) => {
      const put = tx.put(kind.table, doc.id, doc);
      spec.afterCreate?.(tx, doc, { d, caller, query: req.query });
      return put;
    });
    return ok(itemView(d, caller, stored));
  };

  const read = async ({ d, params, caller }: RouteContext): Promise<RouteReply> => ok(itemView(d, caller, load(d, spec, params.id)));

  /** Applies `change` to the document at the version the body names. */
  const change = async (ctx: RouteContext, fieldsOf: (input: Input, doc: D) => Promise<Partial<D>> | Partial<D>): Promise<RouteReply> => {
    const { d, params, caller } = ctx;
    const doc = load(d, spec, params.id);
    const input = ctx.input();
    const version = input.version();
    const fields = await fieldsOf(input, doc);
    input.done();
    const stored = await write(d, (tx) => {
      const cur = tx.get<D>(kind.table, doc.id);
      if (!cur) throw resourceNotFound();
      if (cur.version !== version) throw versionMismatch(version!, cur.version);
      const next = { ...cur, ...fields, version: cur.version + 1, updated_time: d.nowIso() } as Stored<D>;
      const { CreateIndex: _c, ModifyIndex: _m, ...clean } = next;
      return tx.put(kind.table, doc.id, compact(clean) as unknown as D);
    });
    return ok(itemView(d, caller, stored));
  };

  const update = (ctx: RouteContext) =>
    change(ctx, async (input, doc) => {
      const fields = common(input) as Partial<D>;
      return { ...fields, ...(await spec.update?.(ctx.d, input, doc)) };
    });

  const remove = async ({ d, params }: RouteContext): Promise<RouteReply> => {
    const doc = load(d, spec, params.id);
    await write(d, (tx) => {
      tx.delete(kind.table, doc.id);
      spec.onDelete?.(tx, doc, d);
    });
    spec.afterDelete?.(d, doc);
    return { status: 204 };
  };

  const actions = actionPatterns.map((pattern): GatewayRoute => {
    const action = pattern.slice(`${item}:`.length);
    const fn = spec.actions![action];
    return {
      method: 'POST',
      pattern,
      summary: `${action} on a ${kind.type}`,
      access: grantOnItem(spec, action),
      handlerDecodes: true,
      handle: (ctx) => change(ctx, (input, doc) => fn(ctx.d, input, doc, ctx.caller)),
    };
  });
  const all: Array<[NonNullable<CollectionSpec<D>['only']>[number], GatewayRoute]> = [
    ['list', { method: 'GET', pattern: list, summary: `list ${spec.path}`, access: listAccess, fields: LIST_FIELDS, handlerDecodes: true, handle: listItems }],
    [
      'create',
      {
        method: 'POST',
        pattern: list,
        summary: `create a ${kind.type}`,
        access: (ctx) => ({ resource: createParent(spec, ctx).c.r, action: 'create' }),
        handlerDecodes: true,
        handle: create,
      },
    ],
    ['read', { method: 'GET', pattern: item, summary: `read a ${kind.type}`, access: grantOnItem(spec, 'read'), handlerDecodes: true, handle: read }],
    ['update', { method: 'PATCH', pattern: item, summary: `update a ${kind.type}`, access: grantOnItem(spec, 'update'), handlerDecodes: true, handle: update }],
    [
      'delete',
      { method: 'DELETE', pattern: item, summary: `delete a ${kind.type}`, access: grantOnItem(spec, 'delete'), handlerDecodes: true, handle: remove },
    ],
  ];
  return [...actions, ...all.filter(([op]) => !spec.only || spec.only.includes(op)).map(([, r]) => r)];
}
