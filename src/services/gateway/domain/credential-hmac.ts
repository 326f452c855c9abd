/**
 * The `*_hmac` fields of credential stores and static credentials (`token_hmac`,
 * `password_hmac`, `object_hmac`, `private_key_hmac`, `private_key_passphrase_hmac`): an
 * HMAC-SHA256 of the secret under a key derived for its store from the controller's
 * credential HMAC key, base64url without padding as the reference shows them. Equal
 * secrets in two stores give different values, and nobody without the state key can test
 * a guess against one (a bare hash would allow both).
 *
 * @module
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { GatewayDomain } from './domain.js';

/** The HMAC of `secret` for store `storeId`. */
export function credentialHmac(d: GatewayDomain, storeId: string, secret: string): string {
  const key = Buffer.from(hkdfSync('sha256', d.credentialHmacKey, storeId, 'cairn gateway credential hmac v1', 32));
  return createHmac('sha256', key).update(secret, 'utf8').digest('base64url');
}
