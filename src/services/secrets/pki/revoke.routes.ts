/**
 * `revoke` and `crl/rotate` of the PKI engine (reference/secrets-engines.md §7 "Revoke /
 * read / CRL").
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath } from '../types.js';
import { rebuildAllCrls } from './crl.js';
import { revokeCertificate, revokeTarget } from './revoke.js';
import { pkiStoreOf } from './store.js';

const revokePath: SecretsPath = {
  pattern: 'revoke',
  synopsis: 'Revoke a certificate by serial number or by the certificate itself',
  description: "The serial is added to its issuer's CRL, which is rebuilt at once. Revoking again answers the first revocation time.",
  fields: {
    serial_number: Type.String({ maxLength: 128, description: 'the serial (39:dd:… or 39-dd-…)' }),
    certificate: Type.String({ description: 'the PEM certificate (also one issued with no_store)' }),
  },
  operations: {
    update: {
      summary: 'Revoke a certificate',
      handle: async (req) => ({ data: await revokeCertificate(pkiStoreOf(req), { ...revokeTarget(req.data), now: req.now }) }),
    },
  },
};

const rotatePath: SecretsPath = {
  pattern: 'crl/rotate',
  synopsis: 'Rebuild the CRLs now',
  operations: {
    read: {
      summary: 'Rebuild the CRLs',
      handle: async (req) => {
        await rebuildAllCrls(pkiStoreOf(req), req.now);
        return { data: { success: true } };
      },
    },
  },
};

/** The revocation paths. */
export const revokePaths: readonly SecretsPath[] = [revokePath, rotatePath];
