/**
 * What every auth method does once credentials check out: issue an orphan service
 * token with the user's or role's policies plus `default`, and answer with the `auth`
 * block (reference/secrets.md §4.2). Also the name rule for users and roles.
 *
 * @module
 */
import { unsupportedPath } from '../../../kernel/http/index.js';
import { authBlock } from '../token/store.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { loginTtls, type TokenSettings } from './token-fields.js';

/** Options of {@link issueLoginToken}. */
export interface LoginTokenOptions {
  readonly settings: Readonly<TokenSettings>;
  /** Token metadata, e.g. `{username: "alice"}`; shown as the auth block's `metadata`. */
  readonly meta: Record<string, string>;
  /** The user or role name, appended to the display name (`userpass-alice`); may be empty. */
  readonly name: string;
  /** The login path relative to the mount, canonical form (`login/alice`, `login`); recorded as the token's `path`. */
  readonly loginPath: string;
  /** CIDR blocks binding the token instead of the settings' `token_bound_cidrs` (an AppRole secret ID's own). */
  readonly boundCidrs?: readonly string[];
}

/**
 * Creates the login token for `req` (an unauthenticated login request on an auth
 * mount): orphan, renewable, policies = settings + `default`, TTLs from
 * {@link loginTtls} (periodic when `token_period` is set; a period over the effective
 * maximum is capped and the reply carries the reference's warning), bound to `boundCidrs` or else
 * the settings' `token_bound_cidrs`, `path` = `auth/<mount>/<loginPath>` (e.g.
 * `auth/userpass/login/alice`).
 * Returns the 200 result with `data: null` and the `auth` block.
 */
export async function issueLoginToken(req: SecretsRequest, o: LoginTokenOptions): Promise<SecretsResult> {
  const { ttlS, maxTtlS, periodS, warning } = loginTtls(o.settings, req.mount.config);
  const prefix = req.mount.path
    .replace(/^auth\//, '')
    .replace(/\/$/, '')
    .replaceAll('/', '-');
  const token = await req.core.tokens.create({
    policies: [...o.settings.token_policies.filter((p) => p !== 'root'), 'default'],
    meta: o.meta,
    displayName: o.name ? `${prefix}-${o.name}` : prefix,
    ttlS,
    explicitMaxTtlS: maxTtlS,
    periodS: periodS ?? 0,
    boundCidrs: o.boundCidrs?.length ? o.boundCidrs : (o.settings.token_bound_cidrs ?? []),
    renewable: true,
    path: req.mount.path + o.loginPath,
    alias: { mount_accessor: req.mount.accessor, name: o.name },
    namespaceId: req.ns.entry.id,
    now: req.now,
  });
  return { data: null, auth: authBlock(token, req.now), ...(warning ? { warnings: [warning] } : {}) };
}

/** User and role names: word characters, then `.`, `-`, `@` or word characters, ending in a word character. */
const NAME = /^\w(?:[\w.@-]*\w)?$/;

/**
 * Checks a user or role name taken from the URL. Errors: 404 unsupported path, as the
 * reference answers a path whose name parameter does not match (reference/secrets.md §1.5).
 */
export function checkName(req: SecretsRequest, name: string): string {
  if (!NAME.test(name)) throw unsupportedPath(req.mount.path + req.path);
  return name;
}
