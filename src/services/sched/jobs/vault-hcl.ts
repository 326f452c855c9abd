/**
 * A task's `vault` block of an HCL job file (issue 27 scope 3; reference/integration.md §4) →
 * the job API's `Vault` JSON (jobs/vault.ts), for hcl.ts:
 *
 * ```hcl
 * vault {
 *   role          = "cairn-workloads"   # default: the client's create_from_role, else the auth method's default_role
 *   change_mode   = "signal"            # restart (default) | signal | noop
 *   change_signal = "SIGHUP"
 *   env           = true                # VAULT_TOKEN (default true)
 *   disable_file  = false               # secrets/vault_token (default: written)
 *   allow_token_revocation = true       # Cairn: revoke the token when the task ends (default true)
 * }
 * ```
 *
 * `namespace`, `cluster`, `allow_token_expiration` and the legacy `policies` are accepted as
 * the reference's. The checks are the jobs API's (validate.ts), at submit.
 *
 * @module
 */
import { defined, type Body } from './hcl-values.js';

/** The keys of a `vault` block (kernel/config schema). */
export const VAULT_HCL_KEYS = {
  kind: 'block',
  keys: {
    role: { kind: 'string' },
    policies: { kind: 'list', of: 'string' },
    namespace: { kind: 'string' },
    cluster: { kind: 'string' },
    change_mode: { kind: 'string' },
    change_signal: { kind: 'string' },
    env: { kind: 'bool' },
    disable_file: { kind: 'bool' },
    allow_token_expiration: { kind: 'bool' },
    allow_token_revocation: { kind: 'bool' },
  },
} as const;

/** The `Vault` JSON of a task's `vault` block (undefined without one). */
export function vaultFromHcl(b: Body | undefined): Record<string, unknown> | undefined {
  if (!b) return undefined;
  return defined({
    Role: b.role,
    Policies: b.policies,
    Namespace: b.namespace,
    Cluster: b.cluster,
    ChangeMode: b.change_mode,
    ChangeSignal: b.change_signal,
    Env: b.env,
    DisableFile: b.disable_file,
    AllowTokenExpiration: b.allow_token_expiration,
    AllowTokenRevocation: b.allow_token_revocation,
  });
}
