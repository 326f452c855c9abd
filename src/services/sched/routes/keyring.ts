/**
 * The keyring's operator endpoints (reference/integration.md §4; the reference's
 * `/v1/operator/keyring/*`, "ACL Required: management"):
 *
 * ```text
 * GET        /v1/operator/keyring/keys         [RootKeyMeta…], oldest first (blocking on the keyring)
 * PUT|POST   /v1/operator/keyring/rotate       ?full=bool ?publish_time=<Unix ns> ?algorithm=  → {"Key": RootKeyMeta, "Index": N}
 * DELETE     /v1/operator/keyring/key/:key_id  ?force=bool                                    → {"Index": N}
 * ```
 *
 * `RootKeyMeta` is keyring/root-key.ts `renderKeyMeta`: never key material. Writes run on the
 * leader (followers forward them). `full` is accepted and changes nothing: the reference
 * re-encrypts its variables with it, and Cairn's keys encrypt nothing (the state key does).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { ApiQuery } from '../../../kernel/http/index.js';
import { parseGoBool } from '../../../kernel/util/go-bool.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedInternal, writeReply, type SchedReply } from '../http.js';
import type { Keyring } from '../keyring/keyring.js';
import { renderKeyMeta } from '../keyring/root-key.js';
import { T } from '../state.js';

/** The reference's rule for every keyring endpoint. */
const MANAGEMENT: SchedAccess = { management: true };

/** Algorithms `?algorithm=` may name: the reference's own (`aes256-gcm`) and Cairn's signing one. */
const ALGORITHMS = ['aes256-gcm', 'RS256'];

/** The query parameters of a rotation. */
const ROTATE_QUERY: ApiQuery = {
  full: Type.Boolean({ description: 'Accepted; Cairn keys encrypt nothing to re-encrypt.' }),
  publish_time: Type.Integer({ description: 'Unix time in ns at which the new key becomes active (pre-published until then); default: now.' }),
  algorithm: Type.String({ description: '`aes256-gcm` (the reference) or `RS256`; the key signs with RS256 and EdDSA.' }),
};

/** The server's keyring. @throws 500 on an agent without one (never routed: client-only agents do not serve these). */
function keyringOf(ctx: Ctx): Keyring {
  const k = ctx.deps.keyring;
  if (!k) throw schedInternal('this agent keeps no keyring');
  return k;
}

/** A boolean query parameter; absent or empty: false. @throws 400 naming it. */
function boolParam(ctx: Ctx, name: string): boolean {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return false;
  const v = parseGoBool(raw);
  if (v === undefined) throw schedBadRequest(`invalid ${name} value "${raw}": must be a boolean`);
  return v;
}

/** `PUT /v1/operator/keyring/rotate`. @throws 400 naming `full`, `publish_time` or `algorithm`. */
async function rotate(ctx: Ctx): Promise<SchedReply> {
  boolParam(ctx, 'full');
  const algorithm = ctx.query.get('algorithm');
  if (algorithm !== null && algorithm !== '' && !ALGORITHMS.includes(algorithm))
    throw schedBadRequest(`invalid algorithm "${algorithm}": must be one of ${ALGORITHMS.join(', ')}`);
  const rawPublish = ctx.query.get('publish_time');
  if (rawPublish !== null && rawPublish !== '' && !/^\d{1,20}$/.test(rawPublish))
    throw schedBadRequest(`invalid publish_time "${rawPublish}": must be a Unix time in nanoseconds`);
  const key = await keyringOf(ctx).rotate(rawPublish ? Number(rawPublish) : 0);
  return writeReply(key.ModifyIndex, { Key: renderKeyMeta(key), Index: key.ModifyIndex });
}

/** `DELETE /v1/operator/keyring/key/:key_id`. @throws 400 naming `force`; 404 `root key not found`; 400 for the active key. */
async function remove(ctx: Ctx): Promise<SchedReply> {
  boolParam(ctx, 'force');
  const index = await keyringOf(ctx).remove(ctx.params.key_id!);
  return writeReply(index, { Index: index });
}

/** Routes of this file. */
export const keyringRoutes: readonly SchedRoute[] = [
  {
    pattern: 'operator/keyring/keys',
    synopsis: 'List the root keys that sign workload identities (metadata only)',
    blocking: [T.rootKeys],
    methods: {
      GET: {
        access: MANAGEMENT,
        handle: async (ctx) => ({
          body: keyringOf(ctx)
            .keys()
            .map((k) => renderKeyMeta(k)),
          index: ctx.deps.state.tableIndex(T.rootKeys),
        }),
      },
    },
  },
  {
    pattern: 'operator/keyring/rotate',
    synopsis: 'Make a new root key: active now, or pre-published until ?publish_time',
    methods: { PUT: { access: MANAGEMENT, query: ROTATE_QUERY, handle: rotate }, POST: { access: MANAGEMENT, query: ROTATE_QUERY, handle: rotate } },
  },
  {
    pattern: 'operator/keyring/key/:key_id',
    synopsis: 'Delete a root key that is not active',
    methods: { DELETE: { access: MANAGEMENT, query: { force: Type.Boolean({ description: 'Accepted; the active key is never deleted.' }) }, handle: remove } },
  },
];
