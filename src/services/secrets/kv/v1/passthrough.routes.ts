/**
 * KV version 1 ("passthrough"): one path, any JSON object stored as it is, no versions
 * (spec 000 "Secret (key-value engine)"; reference/secrets.md §2.2).
 *
 * @module
 */
import { badRequest } from '../../../../kernel/http/index.js';
import { json } from '../../../../kernel/store/index.js';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { leaseOf } from './leases.js';

const key = (req: SecretsRequest) => req.params.path;

const passthroughPath: SecretsPath = {
  pattern: ':path*',
  synopsis: 'Pass-through secret storage: any JSON object at any path',
  description: 'Write any JSON object to a path and read it back as it is. Listing a directory shows its keys; sub-directories end in "/".',
  params: { path: 'location of the secret' },
  exists: async (req) => (await req.storage.get(key(req))) !== undefined,
  operations: {
    read: {
      summary: 'Read a secret',
      handle: async (req) => {
        if (key(req) === '') return undefined;
        const data = json.decode<Record<string, unknown>>(await req.storage.get(key(req)));
        if (!data) return undefined;
        // `options.leased_passthrough = "true"`: the read is a renewable lease (kv/v1/leases.ts).
        return req.mount.options?.leased_passthrough === 'true'
          ? { data, leaseDuration: leaseOf(req, data), lease: { renewable: true } }
          : { data, leaseDuration: leaseOf(req, data) };
      },
    },
    create: { summary: 'Write a secret', rawBody: true, handle: write },
    update: { summary: 'Write a secret', rawBody: true, handle: write },
    delete: {
      summary: 'Delete a secret',
      handle: async (req) => {
        await req.storage.delete(key(req));
        return undefined;
      },
    },
    list: {
      summary: 'List the keys at a directory',
      handle: async (req) => {
        const keys = await req.storage.list(key(req) === '' ? '' : key(req) + '/');
        return keys.length ? { data: { keys } } : undefined;
      },
    },
  },
};

async function write(req: SecretsRequest) {
  if (key(req) === '') throw badRequest('missing path');
  if (Object.keys(req.body).length === 0) throw badRequest('missing data fields');
  await req.storage.put(key(req), json.encode(req.body));
  return undefined;
}

/** Every path of KV version 1. */
export const kvV1Paths: readonly SecretsPath[] = [passthroughPath];
