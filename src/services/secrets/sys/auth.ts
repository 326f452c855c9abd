/**
 * Logic of `sys/auth` (reference/secrets.md §3.6): the wire shape of an auth mount, the
 * input rules for enabling one, and disabling one (entry, then its tokens, then its
 * data). Auth methods live in the mount table at `auth/<path>/`.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { InputError, parseDuration } from '../../../kernel/util/duration.js';
import { AUTH_METHODS } from '../auth/methods.js';
import type { SecretsCore } from '../core.js';
import { deleteAll, type NamespaceScope } from '../namespace/scope.js';
import { normalizeMountPath, type MountEntry, type MountInput } from '../mounts/table.js';
import { mountInfo } from '../mounts/info.js';

/** The token type every auth mount reports (`config.token_type`); Cairn issues service tokens only. */
const AUTH_TOKEN_TYPE = 'default-service';

/** The key of an auth mount in `GET sys/auth`: its path without `auth/`, e.g. `userpass/`. */
export const authKey = (e: MountEntry): string => e.path.slice('auth/'.length);

/** The wire shape of one auth mount: the mount shape with `config.token_type` (reference/secrets.md §3.6). */
export function authInfo(e: MountEntry): Record<string, unknown> {
  return { ...mountInfo(e), config: { ...e.config, token_type: AUTH_TOKEN_TYPE } };
}

/** The lease settings of tune reads (seconds; 0 = system default). */
export function authTuneInfo(e: MountEntry): Record<string, unknown> {
  return { ...e.config, description: e.description, token_type: AUTH_TOKEN_TYPE, options: e.options };
}

/** Parses an optional non-negative duration field (seconds); absent or null → undefined. Errors: 400 naming `field`. */
export function leaseTtl(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const s = parseDuration(v, field);
  if (s < 0) throw new InputError(`${field}: must not be negative`);
  return s;
}

/** Errors (400) when a non-zero default lease TTL exceeds a non-zero maximum. */
export function checkLeaseOrder(def: number, max: number, prefix = ''): void {
  if (def && max && def > max) throw new InputError(`${prefix}default_lease_ttl: must not be greater than ${prefix}max_lease_ttl`);
}

/**
 * Validates the body of `POST sys/auth/:path` (already schema-checked) and builds the
 * mount input. Errors (400 naming the field): `token` or an unknown type, bad or
 * negative `config` TTLs, a default TTL above the maximum.
 */
export function authInput(d: Readonly<Record<string, unknown>>): MountInput {
  const type = String(d.type);
  if (type === 'token') throw new InputError('type: the token auth method is built in and always enabled at auth/token/');
  if (!AUTH_METHODS.has(type)) throw new InputError(`type: unknown auth method type "${type}"`);
  const c = (d.config as Record<string, unknown> | undefined) ?? {};
  const def = leaseTtl(c.default_lease_ttl, 'config.default_lease_ttl') ?? 0;
  const max = leaseTtl(c.max_lease_ttl, 'config.max_lease_ttl') ?? 0;
  checkLeaseOrder(def, max, 'config.');
  return {
    type,
    description: d.description === undefined ? '' : String(d.description),
    config: { default_lease_ttl: def, max_lease_ttl: max },
    local: d.local === true,
    seal_wrap: d.seal_wrap === true,
  };
}

/**
 * Disables the auth method at `auth/<path>/`; idempotent. The entry goes first (no more
 * logins), then every token it issued is revoked, then its storage is deleted.
 * Errors (400): `token/`, which cannot be disabled.
 */
export async function disableAuthMethod(core: SecretsCore, ns: NamespaceScope, path: string): Promise<void> {
  if (normalizeMountPath(path) === 'token/') throw badRequest('token credential backend cannot be disabled');
  const entry = await ns.mounts.unmountAuth(path);
  if (!entry) return;
  await core.tokens.revokeByPathPrefix(entry.path, ns.entry.id);
  await deleteAll(core.storageFor(entry));
}
