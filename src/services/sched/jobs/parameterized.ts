/**
 * Parameterized jobs (the reference's `parameterized` block and task `dispatch_payload`;
 * its `ParameterizedJobConfig`, `DispatchPayloadConfig` and `Job.Dispatch`): a batch job
 * that is never scheduled itself; each `POST /v1/job/:id/dispatch` makes a child job
 * `<id>/dispatch-<unix seconds>-<8 hex>` with the request's meta merged in and its payload
 * kept with the child (base64, at most {@link DISPATCH_PAYLOAD_LIMIT} bytes decoded), which
 * the client writes to each task's `local/<dispatch_payload.file>`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import type { Job, ParameterizedJobConfig } from './types.js';

/** The reference's `DispatchPayloadLimit`: 16 KiB of decoded payload. */
const DISPATCH_PAYLOAD_LIMIT = 16 * 1024;

const PAYLOAD_MODES = ['optional', 'required', 'forbidden'];

/** A `[]string` field of the block at `path`. @throws 400 Go's decoder text. */
function keys(raw: Record<string, unknown>, name: string, path: string): string[] | null {
  const v = fieldOf(raw, name);
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || !v.every((k) => typeof k === 'string'))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type []string`);
  return v.length ? [...v] : null;
}

/** `Job.ParameterizedJob` from the register body; undefined when absent or `null`. @throws 400 Go's decoder texts. */
export function decodeParameterized(raw: Record<string, unknown>): ParameterizedJobConfig | undefined {
  const v = fieldOf(raw, 'ParameterizedJob');
  if (v === undefined || v === null) return undefined;
  const path = 'Job.ParameterizedJob';
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type api.ParameterizedJobConfig`);
  const payload = fieldOf(v, 'Payload');
  if (payload !== undefined && payload !== null && typeof payload !== 'string')
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(payload)} into Go struct field ${path}.Payload of type string`);
  return { Payload: payload || 'optional', MetaRequired: keys(v, 'MetaRequired', path), MetaOptional: keys(v, 'MetaOptional', path) };
}

/** A task's `DispatchPayload` (`{File}`); undefined when absent or `null`. @throws 400 Go's decoder texts. */
export function decodeDispatchPayload(raw: Record<string, unknown>, path: string): { readonly File: string } | undefined {
  const v = fieldOf(raw, 'DispatchPayload');
  if (v === undefined || v === null) return undefined;
  if (!isObject(v))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.DispatchPayload of type api.DispatchPayloadConfig`);
  const file = fieldOf(v, 'File') ?? '';
  if (typeof file !== 'string')
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(file)} into Go struct field ${path}.DispatchPayload.File of type string`);
  return { File: file };
}

/** Whether `file` (relative to the task's `local/`) stays inside the task's directory. */
function staysInLocal(file: string): boolean {
  if (file.startsWith('/') || file.includes('\0')) return false;
  let depth = 0;
  for (const part of file.split('/')) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return false;
  }
  return depth > 0;
}

/** The job's parameterized checks (the reference's texts): the payload mode, disjoint meta keys, a batch job, no payload on a register. */
export function parameterizedErrors(job: Job): string[] {
  const out: string[] = [];
  const p = job.ParameterizedJob;
  if (p) {
    if (!PAYLOAD_MODES.includes(p.Payload)) out.push(`Unknown payload requirement: ${JSON.stringify(p.Payload)}`);
    const both = (p.MetaRequired ?? []).filter((k) => (p.MetaOptional ?? []).includes(k));
    if (both.length) out.push(`Required and optional meta keys should be disjoint. Following keys exist in both: [${both.join(' ')}]`);
    if (job.Type !== 'batch' && job.Type !== 'sysbatch') out.push(`Parameterized job can only be used with "batch" or "sysbatch" scheduler`);
  }
  for (const g of job.TaskGroups)
    for (const t of g.Tasks)
      if (t.DispatchPayload && !staysInLocal(t.DispatchPayload.File))
        out.push(`Task ${t.Name}: dispatch payload file ${JSON.stringify(t.DispatchPayload.File)} escapes the task's local directory`);
  return out;
}

/** A dispatch request (the reference's `api.JobDispatchRequest`): the payload in base64 and the meta. */
export interface DispatchRequest {
  readonly payload: string;
  readonly meta: Readonly<Record<string, string>>;
}

/**
 * Checks `req` against `parent`'s parameterized block (the reference's
 * `validateDispatchRequest`, its texts) and returns the child job to register: ID
 * `<parent>/dispatch-<unix s>-<8 hex>`, `ParentID`, no `ParameterizedJob`, `Dispatched`, the
 * meta merged, the payload. @throws 400 for a job that is not parameterized or is stopped,
 * a payload that is not base64, too large, missing or forbidden, meta keys not allowed or missing.
 */
export function dispatchedJob(parent: Job, req: DispatchRequest, nowMs: number): Job {
  const p = parent.ParameterizedJob;
  if (!p) throw schedBadRequest(`Specified job "${parent.ID}" is not a parameterized job`);
  if (parent.Stop) throw schedBadRequest(`Specified job "${parent.ID}" is stopped`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(req.payload) || req.payload.length % 4 !== 0) throw schedBadRequest('Payload must be base64');
  const size = Buffer.from(req.payload, 'base64').length;
  if (p.Payload === 'required' && size === 0) throw schedBadRequest('Payload is not provided but required by parameterized job');
  if (p.Payload === 'forbidden' && size > 0) throw schedBadRequest('Payload provided but forbidden by parameterized job');
  if (size > DISPATCH_PAYLOAD_LIMIT) throw schedBadRequest(`Payload exceeds maximum size; ${size} > ${DISPATCH_PAYLOAD_LIMIT}`);
  const allowed = new Set([...(p.MetaRequired ?? []), ...(p.MetaOptional ?? [])]);
  const unpermitted = Object.keys(req.meta).filter((k) => !allowed.has(k));
  if (unpermitted.length) throw schedBadRequest(`Dispatch request included unpermitted metadata keys: [${unpermitted.join(' ')}]`);
  const missing = (p.MetaRequired ?? []).filter((k) => !(k in req.meta));
  if (missing.length) throw schedBadRequest(`Dispatch did not provide required meta keys: [${missing.join(' ')}]`);
  const id = `${parent.ID}/dispatch-${Math.floor(nowMs / 1000)}-${randomUUID().slice(0, 8)}`;
  const { ParameterizedJob: _p, ...rest } = parent;
  const meta = { ...(parent.Meta ?? {}), ...req.meta };
  return {
    ...rest,
    ID: id,
    Name: id,
    ParentID: parent.ID,
    Dispatched: true,
    Payload: size > 0 ? req.payload : null,
    Meta: Object.keys(meta).length ? meta : null,
  };
}
