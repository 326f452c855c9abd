/**
 * Leases of certificates issued under a role with `generate_lease` (reference/secrets-engines.md
 * §7 "Issue / sign": a lease `pki/issue/<role>/<id>` exists only then): not renewable;
 * revoking the lease (expiry, `sys/leases/revoke`) revokes the certificate.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretLeaseHandlers } from '../lease/handlers.js';
import { revokeCertificate } from './revoke.js';
import { serialKey } from './serial.js';
import { PkiStore } from './store.js';

/** See the module doc. */
export const pkiLeases: SecretLeaseHandlers = {
  async renew() {
    throw badRequest('lease is not renewable');
  },
  async revoke({ lease, mount, storage, now }) {
    const serial = lease.internal?.serial_number;
    if (typeof serial !== 'string') return;
    await revokeCertificate(new PkiStore(storage, { mountUuid: mount.uuid }), { key: serialKey(serial), now });
  },
};
