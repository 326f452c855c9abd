/**
 * Which CSR keys a role signs (reference/secrets-engines.md §7 `key_type` / `key_bits`;
 * `any` signs every type): the type must be the role's and the size at least its bits.
 *
 * @module
 */
import { InputError } from '../../../kernel/util/duration.js';
import { publicKeyKind, type x509 } from './certificate.js';
import type { PkiRole } from './role.js';

/** Errors (400): a key of another type than the role's, or smaller than its `key_bits`. */
export function csrKeyAllowed(role: Pick<PkiRole, 'key_type' | 'key_bits'>, key: x509.PublicKey): void {
  const kind = publicKeyKind(key);
  if (!['rsa', 'ec', 'ed25519'].includes(kind.type)) throw new InputError(`csr: unsupported key type ${kind.type}`);
  if (role.key_type === 'any') return;
  if (kind.type !== role.key_type) throw new InputError(`role requires keys of type ${role.key_type}`);
  if (role.key_bits && kind.bits < role.key_bits)
    throw new InputError(`role requires a minimum of ${role.key_bits}-bit ${role.key_type.toUpperCase()} keys; got ${kind.bits}`);
}
