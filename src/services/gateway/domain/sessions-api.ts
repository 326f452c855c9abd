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
import { collectionRoutes, type CollectionSpec } from './collection.js';
import { T } from './docs.js';
import { resourceNotFound, versionMismatch } from './errors.js';
import { Input } from './input.js';
import { aclResourceOf, authorize, view, type Kind } from './resource.js';
import { ok, type DomainRoute } from './route.js';
import type { SessionDoc } from '../sessions.js';

/** Sessions: in their target's project, owned by their user. */
export const sessionKind: Kind<SessionDoc> = {
  type: 'session',
  table: T.sessions,
  idActions: ['no-op', 'read', 'read:self', 'cancel', 'cancel:self'],
  where: (_d, s) => ({ scopeId: s.scope_id }),
  ownerOf: (s) => s.user_id,
};

const spec: CollectionSpec<SessionDoc> = {
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

/**
 * `POST /v1/sessions/<id>:cancel`: the session goes `canceling` (workers close its
 * connections at their next status report) or, without open connections, `terminated`.
 * @throws 404 unknown session; 403 without `cancel` (or `cancel:self` on one's own);
 *   400 a `version` that is not the session's.
 */
const cancelRoute: DomainRoute = {
  method: 'POST',
  pattern: 'sessions/:id:cancel',
  summary: 'cancel a session',
  handle: async ({ d, req, params, caller }) => {
    const doc = d.sessions.get(params.id);
    if (!doc) throw resourceNotFound();
    authorize(caller, aclResourceOf(d, sessionKind, doc), 'cancel', doc.user_id);
    const input = Input.parse(req.body);
    const version = input.has('version') ? input.version() : undefined;
    input.done();
    if (version !== undefined && version !== doc.version) throw versionMismatch(version, doc.version);
    const done = await d.sessions.cancel(doc.id, 'canceled');
    return ok(view(d, caller, sessionKind, done!));
  },
};

/** The session routes. */
export function sessionRoutes(): DomainRoute[] {
  return [cancelRoute, ...collectionRoutes(spec)];
}
