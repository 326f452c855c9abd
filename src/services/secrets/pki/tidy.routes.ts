/**
 * `tidy` and `tidy-status` of the PKI engine (reference/secrets-engines.md §7 "Tidy"):
 * `tidy_cert_store` deletes stored certificates expired longer than `safety_buffer` ago,
 * `tidy_revoked_certs` deletes their revocations (and rebuilds the CRLs). The reference
 * runs it in the background and answers 202 with a warning; Cairn answers the same once
 * it has finished (docs/compatibility.md), so `tidy-status` right after shows the result.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { InputError, formatTime, hasField, parseDuration } from '../../../kernel/util/duration.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { rebuildAllCrls } from './crl.js';
import { pkiStoreOf } from './store.js';

const TIDY_STARTED = 'Tidy operation successfully started. Any information from the operation will be printed to the server logs.';

async function tidy(req: SecretsRequest): Promise<Record<string, unknown>> {
  const d = req.data;
  const buffer = hasField(d, 'safety_buffer') ? parseDuration(d.safety_buffer, 'safety_buffer') : 72 * 3600;
  if (buffer < 1) throw new InputError('safety_buffer: must be greater than zero');
  const certStore = d.tidy_cert_store === true;
  const revokedCerts = d.tidy_revoked_certs === true;
  if (!certStore && !revokedCerts) throw new InputError('at least one tidy operation must be enabled (tidy_cert_store, tidy_revoked_certs)');
  const store = pkiStoreOf(req);
  const started = formatTime(req.now);
  const cutoff = Math.floor(req.now.getTime() / 1000) - buffer;
  let certsDeleted = 0;
  let revokedDeleted = 0;
  if (certStore) {
    for (const key of await store.certKeys()) {
      const c = await store.cert(key);
      if (c && c.not_after < cutoff) {
        await req.storage.delete(`certs/${key}`);
        certsDeleted++;
      }
    }
  }
  if (revokedCerts) {
    for (const key of await store.revokedKeys()) {
      const r = await store.revoked(key);
      if (r && r.not_after < cutoff) {
        await req.storage.delete(`revoked/${key}`);
        revokedDeleted++;
      }
    }
    await rebuildAllCrls(store, req.now);
  }
  const status = {
    safety_buffer: buffer,
    tidy_cert_store: certStore,
    tidy_revoked_certs: revokedCerts,
    state: 'Finished',
    error: null,
    time_started: started,
    time_finished: formatTime(req.now),
    message: 'Tidying certificate store: done',
    cert_store_deleted_count: certsDeleted,
    revoked_cert_deleted_count: revokedDeleted,
  };
  await store.putTidyStatus(status);
  return status;
}

const tidyPath: SecretsPath = {
  pattern: 'tidy',
  synopsis: 'Delete expired certificates and revocations from storage',
  fields: {
    tidy_cert_store: Type.Boolean({ description: 'delete stored certificates expired longer than safety_buffer ago' }),
    tidy_revoked_certs: Type.Boolean({ description: 'delete revocations of certificates expired longer than safety_buffer ago' }),
    safety_buffer: Type.Union([Type.String(), Type.Integer()], { description: 'how long past NotAfter a certificate is kept (default "72h")' }),
  },
  operations: {
    update: {
      summary: 'Tidy the certificate store',
      handle: async (req) => {
        await tidy(req);
        return { data: null, warnings: [TIDY_STARTED], status: 202 };
      },
    },
  },
};

const statusPath: SecretsPath = {
  pattern: 'tidy-status',
  synopsis: 'The result of the last tidy',
  operations: {
    read: {
      summary: 'Read the tidy status',
      handle: async (req) => ({ data: (await pkiStoreOf(req).tidyStatus()) ?? { state: 'Inactive' } }),
    },
  },
};

/** The tidy paths. */
export const tidyPaths: readonly SecretsPath[] = [tidyPath, statusPath];
