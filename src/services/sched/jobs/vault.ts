/**
 * A task's `vault` block as the jobs API takes it (issue 27 scope 3; reference/integration.md
 * §4, the reference's `api.Vault`): JSON `Vault`, decoded with Go's texts and the reference's
 * defaults, its checks (the reference's `Vault.Validate` texts, prefixed `Vault validation
 * failed: ` as its task validation does), and what a `vault` block adds at submit:
 *
 * ```json
 * "Vault": { "Role": "", "ChangeMode": "restart", "ChangeSignal": "", "Env": true, "DisableFile": false,
 *            "Namespace": "", "Cluster": "default", "AllowTokenExpiration": false, "AllowTokenRevocation": true, "Policies": null }
 * ```
 *
 * - the identity `vault_default` (aud `cairn-secrets`, ttl 1h) unless the task declares one of
 *   that name (the reference's server `vault.default_identity`, aud `vault.io`);
 * - the group constraint `${attr.vault.accessible} = true`, so the task is placed only on a
 *   client with a `vault` block (the reference's implicit constraint on `${attr.vault.version}`;
 *   Cairn's client reports `vault.accessible` from its configuration, client/fingerprint.ts).
 *
 * `Policies` belongs to the reference's legacy token flow: with workload identities it is
 * ignored, with the reference's warning (see {@link vaultWarnings}).
 *
 * @module
 */
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import type { Constraint, Task, TaskVault, WorkloadIdentity } from './types.js';

/** The identity the client logs in to the secrets service with (contract: server `vault.default_identity`). */
export const VAULT_IDENTITY = 'vault_default';
/** Its audience: the secrets service's JWT role binds it (`bound_audiences`). */
const VAULT_AUDIENCE = 'cairn-secrets';
/** Its TTL in ns (1 h): the client signs it again for each login. */
const VAULT_IDENTITY_TTL = 3600e9;
/** The only cluster (the reference's Community Edition: `default`). */
const DEFAULT_CLUSTER = 'default';
/** What a new token does to the task. */
const VAULT_CHANGE_MODES = ['noop', 'restart', 'signal'] as const;

/** The constraint a task group with a `vault` block gets (module doc). */
const VAULT_CONSTRAINT: Constraint = { LTarget: '${attr.vault.accessible}', RTarget: 'true', Operand: '=' };

const FIELDS = {
  Policies: 'strings',
  Role: 'string',
  Namespace: 'string',
  Cluster: 'string',
  Env: 'bool',
  DisableFile: 'bool',
  ChangeMode: 'string',
  ChangeSignal: 'string',
  AllowTokenExpiration: 'bool',
  AllowTokenRevocation: 'bool',
} as const;

/**
 * A task's `Vault`: absent or null → undefined; else the block with the reference's defaults
 * (`Env` true, `ChangeMode` `restart`, `Cluster` `default`; Cairn's `AllowTokenRevocation`
 * true), `ChangeSignal` upper-cased as the reference's `Canonicalize`.
 * @throws 400 Go's text for a field of the wrong kind.
 */
export function decodeVault(raw: unknown, path: string): TaskVault | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field ${path} of type api.Vault`);
  const d = decodeGoStruct(raw, path, FIELDS);
  const given = (name: string) => fieldOf(raw, name) !== undefined;
  const policies = d.Policies as string[] | null;
  return {
    Role: d.Role as string,
    Policies: policies && policies.length > 0 ? policies : null,
    Namespace: d.Namespace as string,
    Cluster: (d.Cluster as string) || DEFAULT_CLUSTER,
    ChangeMode: (d.ChangeMode as string) || 'restart',
    ChangeSignal: (d.ChangeSignal as string).toUpperCase(),
    Env: given('Env') ? (d.Env as boolean) : true,
    DisableFile: d.DisableFile as boolean,
    AllowTokenExpiration: d.AllowTokenExpiration as boolean,
    AllowTokenRevocation: given('AllowTokenRevocation') ? (d.AllowTokenRevocation as boolean) : true,
  };
}

/** What is wrong with a task's `vault` block (empty when nothing), each with the reference's `Vault validation failed: ` prefix. */
export function vaultErrors(v: TaskVault | undefined): string[] {
  if (!v) return [];
  const out: string[] = [];
  for (const p of v.Policies ?? []) if (p === 'root') out.push('Can not specify "root" policy');
  if (v.ChangeMode === 'signal' && v.ChangeSignal === '') out.push('Signal must be specified when using change mode "signal"');
  if (!(VAULT_CHANGE_MODES as readonly string[]).includes(v.ChangeMode)) out.push(`Unknown change mode ${JSON.stringify(v.ChangeMode)}`);
  if (v.ChangeMode !== 'signal' && v.ChangeSignal !== '') out.push('change_signal is only for change mode "signal"');
  if (v.Cluster !== DEFAULT_CLUSTER) out.push(`cluster ${JSON.stringify(v.Cluster)} is not supported: only "${DEFAULT_CLUSTER}"`);
  return out.map((e) => `Vault validation failed: ${e}`);
}

/** The reference's warnings for a job's `vault` blocks: `Policies` is ignored with workload identities. */
export function vaultWarnings(tasks: readonly Pick<Task, 'Name' | 'Vault'>[]): string[] {
  return tasks
    .filter((t) => (t.Vault?.Policies ?? []).length > 0)
    .map((t) => `Task ${t.Name} has a Vault block with policies but uses workload identity to authenticate with Vault, policies will be ignored`);
}

/** `named` with the implicit `vault_default` identity added when the task has a `vault` block and does not declare it (module doc). */
export function withVaultIdentity(vault: TaskVault | undefined, named: WorkloadIdentity[] | undefined): WorkloadIdentity[] | undefined {
  if (!vault || named?.some((i) => i.Name === VAULT_IDENTITY)) return named;
  const implicit: WorkloadIdentity = {
    Name: VAULT_IDENTITY,
    Audience: [VAULT_AUDIENCE],
    ChangeMode: '',
    ChangeSignal: '',
    Env: false,
    File: false,
    Filepath: '',
    TTL: VAULT_IDENTITY_TTL,
  };
  return [...(named ?? []), implicit];
}

/** A group's constraints with {@link VAULT_CONSTRAINT} added when one of its tasks has a `vault` block (once). */
export function withVaultConstraint(constraints: Constraint[] | null, tasks: readonly Pick<Task, 'Vault'>[]): Constraint[] | null {
  if (!tasks.some((t) => t.Vault)) return constraints;
  const has = (constraints ?? []).some((c) => c.LTarget === VAULT_CONSTRAINT.LTarget && c.Operand === VAULT_CONSTRAINT.Operand && c.RTarget === 'true');
  return has ? constraints : [...(constraints ?? []), VAULT_CONSTRAINT];
}
