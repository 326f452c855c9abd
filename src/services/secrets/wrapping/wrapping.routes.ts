/**
 * `sys/wrapping/wrap`, `unwrap`, `lookup` and `rewrap` (reference/secrets.md §1.3; the
 * reference's `sys/wrapping/*` API). The wrapping token is given in the body's `token`,
 * else it is the request's own token. An unknown, used or expired token is a 400
 * `wrapping token is not valid or does not exist`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, forbidden } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { requestWrapTtl } from './header.js';
import { INVALID_WRAPPING_TOKEN, lookupWrapping, rewrap, unwrap, wrapResult } from './wrap.js';

const TOKEN_FIELD = { token: Type.String({ description: "the wrapping token; default: the request's own token" }) };

/** The wrapping token a request names: `token` in its data, else its own token. */
const wrappingTokenOf = (req: SecretsRequest): string => (typeof req.data.token === 'string' && req.data.token !== '' ? req.data.token : (req.token?.id ?? ''));

const wrapPath: SecretsPath = {
  pattern: 'wrapping/wrap',
  synopsis: 'Wrap arbitrary data in a response-wrapped token',
  description:
    "The request body (any JSON object) becomes the data of a response wrapped with the X-Secrets-Wrap-TTL header's TTL; unwrapping returns it as `data`.",
  operations: {
    update: {
      summary: 'Wrap data',
      rawBody: true,
      handle: async (req) => {
        // The dispatcher wraps the reply; without a wrap TTL there is nothing to wrap it with.
        if (requestWrapTtl(req.headers) === undefined) throw badRequest('endpoint requires response wrapping to be used');
        return { data: { ...req.body } };
      },
    },
  },
};

/** Whether the request carried a token at all (the dispatcher leaves `req.token` unset for an unknown one). */
const sentToken = (req: SecretsRequest): boolean => Boolean(req.headers['x-secrets-token'] || req.headers.authorization?.startsWith('Bearer '));

/**
 * The wrapping token an unwrap uses: `token` in the body, which the caller's own token
 * must be allowed to unwrap with (ACL `update` on `sys/wrapping/unwrap`); else the
 * request's token itself, where an unknown, used or expired one is the reference's 400,
 * not a 403, so a second unwrap reads the same whichever way the token came.
 */
async function unwrapTokenOf(req: SecretsRequest): Promise<string> {
  const inBody = typeof req.data.token === 'string' ? req.data.token : '';
  if (inBody !== '') {
    if (!req.token || !(await req.core.allowed(req.token, 'sys/wrapping/unwrap', 'update', { ns: req.ns.entry, data: req.data }))) throw forbidden();
    return inBody;
  }
  if (req.token) return req.token.id;
  throw sentToken(req) ? badRequest(INVALID_WRAPPING_TOKEN) : forbidden();
}

const unwrapPath: SecretsPath = {
  pattern: 'wrapping/unwrap',
  synopsis: 'Return the response inside a wrapping token, once',
  description:
    "Returns the wrapped response exactly as it would have been sent unwrapped and revokes the wrapping token: a second unwrap fails. Give the wrapping token in `token`, or use it as the request's token (not both).",
  // The route checks its caller itself (unwrapTokenOf): a used wrapping token sent as the request's token is a 400.
  unauthenticated: true,
  fields: TOKEN_FIELD,
  operations: {
    update: { summary: 'Unwrap a response', handle: async (req) => ({ reply: await unwrap(req.core, await unwrapTokenOf(req), req.now) }) },
  },
};

const lookupPath: SecretsPath = {
  pattern: 'wrapping/lookup',
  synopsis: "Show a wrapping token's creation path, time and TTL without using it",
  unauthenticated: true,
  fields: TOKEN_FIELD,
  operations: {
    read: { summary: 'Look up a wrapping token', handle: async (req) => ({ data: await lookupWrapping(req.core, wrappingTokenOf(req), req.now) }) },
    update: { summary: 'Look up a wrapping token', handle: async (req) => ({ data: await lookupWrapping(req.core, wrappingTokenOf(req), req.now) }) },
  },
};

const rewrapPath: SecretsPath = {
  pattern: 'wrapping/rewrap',
  synopsis: 'Move a wrapped response to a new wrapping token',
  description: 'The new token has the same creation TTL and path; the old one is revoked. For long-lived wrapped secrets whose token must rotate.',
  fields: TOKEN_FIELD,
  operations: {
    update: { summary: 'Rewrap a response', handle: async (req) => wrapResult(await rewrap(req.core, wrappingTokenOf(req), req.now), req) },
  },
};

/** The wrapping family of the system backend. */
export const wrappingPaths: readonly SecretsPath[] = [wrapPath, unwrapPath, lookupPath, rewrapPath];
