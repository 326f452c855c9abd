/**
 * `data/<path>`: write, read, patch and soft-delete versions of a secret
 * (spec 000 "Secret (key-value engine)"; reference/secrets.md §2.5, §2.6).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { Frozen } from '../../../../kernel/util/deep-freeze.js';
import { isObject } from '../../../../kernel/util/is-object.js';
import { sharedReplyData } from '../../envelope.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../../types.js';
import { kvStore } from './store-of.js';
import { type KeyMetadata, addVersion, checkCas, mergePatch, newKeyMetadata, renderVersionMeta, softDeleteCurrent, versionState } from './versions.js';

const key = (req: SecretsRequest) => req.params.path;

/** `data` and `options.cas` of a write or patch; 400 `no data provided` when `data` is missing. */
function writeInput(req: SecretsRequest): { data: Record<string, unknown>; cas: unknown } {
  const data = req.data.data;
  if (data === undefined) throw badRequest('no data provided');
  if (!isObject(data)) throw badRequest('field "data": must be a JSON object');
  const options = (req.data.options as Record<string, unknown> | undefined) ?? {};
  return { data, cas: options.cas ?? undefined };
}

async function write(req: SecretsRequest): Promise<SecretsResult> {
  const { data, cas } = writeInput(req);
  return kvStore(req).update(key(req), (current, config) => {
    checkCas(current, config, cas);
    const metadata = current ?? newKeyMetadata(req.now);
    const { version, pruned } = addVersion(metadata, config, req.now);
    return { metadata, puts: [[version, data]], deletes: pruned, result: { data: renderVersionMeta(metadata, version) } };
  });
}

/** The reply data of the last read of each key, by the key's shared metadata object (KvV2Store.read). */
const readReplies = new WeakMap<object, { readonly version: number; readonly source: object; readonly reply: Record<string, unknown> }>();

async function read(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const entry = await kvStore(req).read(key(req));
  if (!entry) return undefined;
  const { metadata } = entry;
  const v = Number(req.data.version ?? 0) || metadata.current_version;
  if (!Object.hasOwn(metadata.versions, String(v))) return undefined;
  if (versionState(metadata.versions[String(v)], req.now) !== 'live') return { status: 404, data: { data: null, metadata: renderVersionMeta(metadata, v) } };
  const data = await entry.data(v);
  return data ? { data: readReply(metadata, v, data) } : undefined;
}

/**
 * `{data, metadata}` of a read of version `v`: rendered and serialised once, then reused
 * while the key's stored value (and so `metadata` and `data`, both frozen and shared)
 * stays the same (issue 15). Whether the version is live is checked on every read.
 */
function readReply(metadata: Frozen<KeyMetadata>, v: number, data: object): Record<string, unknown> {
  const hit = readReplies.get(metadata);
  if (hit && hit.version === v && hit.source === data) return hit.reply;
  const reply = sharedReplyData({ data, metadata: renderVersionMeta(metadata, v) });
  readReplies.set(metadata, { version: v, source: data, reply });
  return reply;
}

async function patch(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const { data: changes, cas } = writeInput(req);
  return kvStore(req).update<SecretsResult | undefined>(key(req), async (current, config, versionData) => {
    if (!current || current.current_version === 0) return { result: undefined };
    const meta = renderVersionMeta(current, current.current_version);
    if (!meta || versionState(current.versions[String(current.current_version)], req.now) !== 'live') return { result: { status: 404, data: meta ?? null } };
    checkCas(current, config, cas);
    const previous = (await versionData(current.current_version)) ?? {};
    const merged = mergePatch(previous, changes) as Record<string, unknown>;
    const { version, pruned } = addVersion(current, config, req.now);
    return { metadata: current, puts: [[version, merged]], deletes: pruned, result: { data: renderVersionMeta(current, version) } };
  });
}

async function softDelete(req: SecretsRequest): Promise<undefined> {
  await kvStore(req).update(key(req), (current) => {
    const changed = current !== undefined && softDeleteCurrent(current, req.now);
    return { metadata: changed ? current : undefined, result: undefined };
  });
  return undefined;
}

const fields = {
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'the key/value pairs of the secret' }),
  options: Type.Object(
    { cas: Type.Optional(Type.Integer({ minimum: 0, description: 'check-and-set: the current version number' })) },
    { additionalProperties: true, description: 'write options; `cas` must equal the current version (0: the key must not exist)' },
  ),
};

/** The `data/<path>` family. */
export const dataPath: SecretsPath = {
  pattern: 'data/:path+',
  synopsis: 'Write, read, patch and delete versions of a secret',
  description:
    'A write creates a new version (numbered from 1); `options.cas` makes it conditional. A read returns the latest version, or `?version=N`. DELETE soft-deletes the latest version; see `undelete/` and `destroy/`. A deleted or destroyed version answers 404 with its metadata.',
  params: { path: 'location of the secret' },
  exists: (req) => kvStore(req).exists(key(req)),
  operations: {
    read: { summary: 'Read a version', fields: { version: Type.Integer({ minimum: 0, description: 'version to read; 0 = latest' }) }, handle: read },
    create: { summary: 'Write a new version', fields, handle: write },
    update: { summary: 'Write a new version', fields, handle: write },
    patch: { summary: 'Merge-patch the latest version into a new version', fields, handle: patch },
    delete: { summary: 'Soft-delete the latest version', fields: {}, handle: softDelete },
  },
};
