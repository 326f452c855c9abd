/**
 * The task's `identity` blocks of an HCL job file (issue 27 scope 2; reference/integration.md
 * §4) → the job API's `Identity` / `Identities` JSON (jobs/identity.ts), for hcl.ts:
 *
 * ```hcl
 * identity {                       # the default identity: secrets/cairn_token, CAIRN_TOKEN
 *   env = true  file = true  ttl = "1h"  change_mode = "restart"
 * }
 * identity {                       # a named one: secrets/cairn_vault_default.jwt, CAIRN_TOKEN_vault_default
 *   name = "vault_default"  aud = ["vault.io"]  ttl = "1h"  file = true
 *   change_mode = "signal"  change_signal = "SIGHUP"
 * }
 * ```
 *
 * A block without `name` (or `name = "default"`) is the default identity; a second one, or two
 * blocks of one name, are an error at the later block's line.
 *
 * @module
 */
import { defined, duration, issue, type Body } from './hcl-values.js';

/** The keys of an `identity` block (kernel/config schema). */
export const IDENTITY_HCL_KEYS = {
  kind: 'block',
  repeated: true,
  keys: {
    name: { kind: 'string' },
    aud: { kind: 'list', of: 'string' },
    ttl: { kind: 'raw' },
    env: { kind: 'bool' },
    file: { kind: 'bool' },
    filepath: { kind: 'string' },
    change_mode: { kind: 'string', enum: ['noop', 'restart', 'signal'] },
    change_signal: { kind: 'string' },
  },
} as const;

/** `Identity` and `Identities` of a task's `identity` blocks (undefined where the file sets none). @throws ConfigError at the block's line. */
export function identitiesFromHcl(blocks: readonly Body[]): { Identity?: Record<string, unknown>; Identities?: Record<string, unknown>[] } {
  let identity: Record<string, unknown> | undefined;
  const named: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const b of blocks) {
    const name = typeof b.name === 'string' && b.name !== '' ? b.name : 'default';
    if (seen.has(name)) throw issue(b.$at, 'name', `identity: a second identity named "${name}"`);
    seen.add(name);
    const json = defined({
      Name: name,
      Audience: b.aud,
      TTL: duration(b, 'ttl'),
      Env: b.env,
      File: b.file,
      Filepath: b.filepath,
      ChangeMode: b.change_mode,
      ChangeSignal: b.change_signal,
    });
    if (name === 'default') identity = json;
    else named.push(json);
  }
  return { ...(identity && { Identity: identity }), ...(named.length > 0 && { Identities: named }) };
}
