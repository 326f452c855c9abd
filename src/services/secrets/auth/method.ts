/**
 * What an auth method type is to the rest of the service: its routes, root help text and
 * renewal check (the registry of them is methods.ts, which imports every method's routes;
 * code that is handed the registry imports only this).
 *
 * @module
 */
import type { TokenEntry } from '../token/store.js';
import type { SecretsPath, SecretsRequest } from '../types.js';

/**
 * What a method checks before a token it issued is renewed (the reference's auth
 * `renew` callbacks): `req` is the renewal request re-targeted at the method's mount
 * (`mount`, `storage`). Throws (a 4xx) to refuse the renewal.
 */
type RenewalCheck = (req: SecretsRequest, token: TokenEntry) => Promise<void>;

/** One auth method type: its route declarations, the description root help shows, its renewal check. */
interface AuthMethod {
  readonly paths: readonly SecretsPath[];
  readonly description: string;
  readonly renew?: RenewalCheck;
}

/** Auth method types by name (methods.ts `AUTH_METHODS`). */
export type AuthMethods = ReadonlyMap<string, AuthMethod>;
