/**
 * The `cubbyhole/` engine (the reference's cubbyhole backend): a key/value store private
 * to each token, mounted in every namespace. A token sees only its own cubbyhole
 * (`cubbyhole-store.ts`: storage keyed by the token's hash), which is deleted when the
 * token is revoked or expires. Read, write (any JSON object, replaced whole), list and
 * delete, as KV version 1 but without leases.
 *
 * @module
 */
import { badRequest, forbidden } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { cubbyholeOf } from './cubbyhole-store.js';

const key = (req: SecretsRequest) => req.params.path;

/** The calling token's cubbyhole in the request's namespace. Error: 403 without a token. */
function box(req: SecretsRequest): Backend {
  if (!req.token) throw forbidden();
  return cubbyholeOf(req.core.backend, req.token.hash, req.ns.entry.id);
}

/** The reference's errors for a write: `missing data fields`, and no empty path. */
async function write(req: SecretsRequest) {
  if (key(req) === '') throw badRequest('missing path');
  if (Object.keys(req.body).length === 0) throw badRequest('missing data fields');
  await box(req).put(key(req), json.encode(req.body));
  return undefined;
}

const cubbyholePath: SecretsPath = {
  pattern: ':path*',
  synopsis: 'Per-token private secret storage',
  description: 'Each token has its own cubbyhole: no other token, root included, can read it, and it is deleted with the token.',
  params: { path: "location of the secret in the token's cubbyhole" },
  exists: async (req) => key(req) !== '' && (await box(req).get(key(req))) !== undefined,
  operations: {
    read: {
      summary: 'Read a secret from the cubbyhole',
      handle: async (req) => {
        if (key(req) === '') return undefined;
        const data = json.decode<Record<string, unknown>>(await box(req).get(key(req)));
        return data && { data };
      },
    },
    create: { summary: 'Write a secret to the cubbyhole', rawBody: true, handle: write },
    update: { summary: 'Write a secret to the cubbyhole', rawBody: true, handle: write },
    delete: {
      summary: 'Delete a secret from the cubbyhole',
      handle: async (req) => {
        if (key(req) === '') throw badRequest('missing path');
        await box(req).delete(key(req));
        return undefined;
      },
    },
    list: {
      summary: 'List the keys at a directory of the cubbyhole',
      handle: async (req) => {
        const keys = await box(req).list(key(req) === '' ? '' : key(req) + '/');
        return keys.length ? { data: { keys } } : undefined;
      },
    },
  },
};

/** Every path of the cubbyhole engine. */
export const cubbyholePaths: readonly SecretsPath[] = [cubbyholePath];

/** The engine's root help text. */
export const cubbyholeHelp =
  'The cubbyhole backend reads and writes arbitrary secrets in storage private to the calling token, destroyed when the token is revoked or expires.';
