/**
 * Sessions as resources (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/sessions and the
 * sessions API): `GET /v1/sessions?scope_id=…[&recursive=true]`, `GET /v1/sessions/<id>`
 * and `POST /v1/sessions/<id>:cancel` (`version` optional here: cancelling is idempotent).
 * Sessions live in their target's project scope; their user may read and cancel them
 * through `read:self` / `cancel:self` grants (the reference's default grants). The
 * authorization token's hash never leaves the controller.
 *
 * @module
 */
import type { CollectionSpec } from './collection.js';
import { T } from './docs.js';
import { resourceNotFound, versionMismatch } from './errors.js';
import { grantOn, view, type Kind } from './resource.js';
import { ok, type Grant, type RouteContext, type RouteReply } from '../route.js';
import type { SessionDoc } from '../sessions.js';

/** Sessions: in their target's project, owned by their user. */
const sessionKind: Kind<SessionDoc> = {
  type: 'session',
  table: T.sessions,
  idActions: ['no-op', 'read', 'read:self', 'cancel', 'cancel:self'],
  where: (_d, s) => ({ scopeId: s.scope_id }),
  ownerOf: (s) => s.user_id,
};

/** The `sessions` collection: its routes are declared in routes.ts. */
export const sessionCollection: CollectionSpec<SessionDoc> = {
  path: 'sessions',
  kind: sessionKind,
  parentField: 'scope_id',
  recursive: true,
  only: ['list', 'read'],
  collection: (d, id) => (d.scope(id) ? { r: { id: '', type: 'session', scopeId: id }, scopeId: id } : undefined),
  inParent: (doc, id) => doc.scope_id === id,
  create: () => Promise.reject(new Error('sessions are made by :authorize-session')),
  newId: () => '',
};

/** The session `id`, or 404. */
function session({ d, params }: RouteContext): SessionDoc {
  const doc = d.sessions.get(params.id);
  if (!doc) throw resourceNotFound();
  return doc;
}

/** The access rule of `:cancel`: `cancel` on the session, or `cancel:self` on one's own (404 first). */
export const cancelAccess = (ctx: RouteContext): Grant => grantOn(ctx.d, sessionKind, session(ctx), 'cancel');

/**
 * `POST /v1/sessions/<id>:cancel`: the session goes `canceling` (workers close its
 * connections at their next status report) or, without open connections, `terminated`.
 * @throws 400 a `version` that is not the session's.
 */
export async function cancelSession(ctx: RouteContext): Promise<RouteReply> {
  const { d, caller } = ctx;
  const doc = session(ctx);
  const input = ctx.input();
  const version = input.has('version') ? input.version() : undefined;
  input.done();
  if (version !== undefined && version !== doc.version) throw versionMismatch(version, doc.version);
  const done = await d.sessions.cancel(doc.id, 'canceled');
  return ok(view(d, caller, { kind: sessionKind, doc: done! }));
}
