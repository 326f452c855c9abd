/**
 * A task's `identity` blocks as the jobs API takes them (issue 27 scope 2;
 * reference/integration.md §4, the reference's `api.WorkloadIdentity`): JSON `Identity` (the
 * default identity) and `Identities` (named ones), decoded with Go's texts, and the checks done
 * at submit.
 *
 * ```json
 * "Identity":   { "Name": "default", "Env": true, "File": true, "TTL": 3600000000000, "ChangeMode": "restart" },
 * "Identities": [{ "Name": "vault_default", "Audience": ["vault.io"], "TTL": 3600000000000, "File": true }]
 * ```
 *
 * Differences from the reference: the default identity may have a `TTL` (it is then refreshed
 * like the others); `Filepath` must stay inside the task directory.
 *
 * @module
 */
import { posix } from 'node:path';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { decodeGoStruct, fieldOf, type GoKind } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import type { WorkloadIdentity } from './types.js';

/** The default identity's name. */
const DEFAULT_NAME = 'default';
/** Names become file names and environment variable suffixes. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Change modes of a refreshed token (`""` is `noop`). */
const IDENTITY_CHANGE_MODES = ['noop', 'restart', 'signal'] as const;
/** Most identities a task may have. */
const MAX_IDENTITIES = 16;

const FIELDS = {
  Name: 'string',
  Audience: 'any',
  ChangeMode: 'string',
  ChangeSignal: 'string',
  Env: 'bool',
  File: 'bool',
  Filepath: 'string',
  ServiceName: 'string',
  TTL: 'duration',
} satisfies Record<string, GoKind>;

/** One identity. @throws 400 Go's text for a field of the wrong kind. */
function decodeIdentity(raw: unknown, path: string, defaultName: string): WorkloadIdentity {
  const d = decodeGoStruct(raw, path, FIELDS);
  const aud = d.Audience;
  if (aud !== null && aud !== undefined && !(Array.isArray(aud) && aud.every((a) => typeof a === 'string')))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(aud)} into Go struct field ${path}.Audience of type []string`);
  return {
    Name: (d.Name as string) || defaultName,
    Audience: (aud as string[] | null | undefined) ?? null,
    ChangeMode: d.ChangeMode as string,
    ChangeSignal: d.ChangeSignal as string,
    Env: d.Env as boolean,
    File: d.File as boolean,
    Filepath: d.Filepath as string,
    TTL: d.TTL as number,
  };
}

/**
 * A task's `Identity`; absent or null → undefined, so a job without identities stores (and
 * compares, scheduler/reconcile.ts) as it did before identities existed. @throws 400 Go's text.
 */
export function decodeDefaultIdentity(raw: Record<string, unknown>, path: string): WorkloadIdentity | undefined {
  const v = fieldOf(raw, 'Identity');
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.Identity of type api.WorkloadIdentity`);
  return decodeIdentity(v, `${path}.Identity`, DEFAULT_NAME);
}

/** A task's `Identities`; absent, null or empty → undefined (as {@link decodeDefaultIdentity}). @throws 400 Go's text. */
export function decodeNamedIdentities(raw: Record<string, unknown>, path: string): WorkloadIdentity[] | undefined {
  const v = fieldOf(raw, 'Identities');
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return undefined;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.Identities of type []*api.WorkloadIdentity`);
  return v.map((i, n) => {
    if (!isObject(i)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(i)} into Go struct field ${path}.Identities of type api.WorkloadIdentity`);
    return decodeIdentity(i, `${path}.Identities[${n}]`, '');
  });
}

/** What is wrong with a task's identities (empty when nothing), each naming the identity and field. */
export function identityErrors(task: { readonly Identity?: WorkloadIdentity | null; readonly Identities?: readonly WorkloadIdentity[] | null }): string[] {
  const out: string[] = [];
  const named = task.Identities ?? [];
  if (named.length > MAX_IDENTITIES) out.push(`at most ${MAX_IDENTITIES} identities are allowed, got ${named.length}`);
  const all = [...(task.Identity ? [task.Identity] : []), ...named];
  const seen = new Set<string>();
  for (const id of all) {
    const what = `identity ${JSON.stringify(id.Name)}`;
    if (!NAME.test(id.Name)) out.push(`${what}: name must be 1 to 64 letters, digits, "_" or "-"`);
    if (seen.has(id.Name)) out.push(`${what}: duplicate identity name`);
    seen.add(id.Name);
    if (id.Name === DEFAULT_NAME && task.Identity !== id) out.push(`${what}: the default identity is set with an identity block without a name`);
    if (id.ChangeMode !== '' && !(IDENTITY_CHANGE_MODES as readonly string[]).includes(id.ChangeMode))
      out.push(`${what}: change_mode must be one of ${IDENTITY_CHANGE_MODES.join(', ')}, got ${JSON.stringify(id.ChangeMode)}`);
    if (id.ChangeMode === 'signal' && id.ChangeSignal === '') out.push(`${what}: change_signal is required with change_mode "signal"`);
    if (id.ChangeMode !== 'signal' && id.ChangeSignal !== '') out.push(`${what}: change_signal is only for change_mode "signal"`);
    if (id.TTL < 0) out.push(`${what}: ttl must not be negative`);
    if (id.TTL > 0 && id.TTL < 1e9) out.push(`${what}: ttl must be at least 1s`);
    if (id.Filepath !== '' && (posix.isAbsolute(id.Filepath) || posix.normalize(id.Filepath).split('/')[0] === '..' || id.Filepath.includes('\0')))
      out.push(`${what}: filepath must be a path inside the task directory, got ${JSON.stringify(id.Filepath)}`);
    if (id.Filepath !== '' && !id.File) out.push(`${what}: filepath needs file = true`);
    for (const a of id.Audience ?? []) if (a === '') out.push(`${what}: aud must not hold an empty string`);
  }
  return out;
}
