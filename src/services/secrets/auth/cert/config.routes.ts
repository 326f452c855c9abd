/**
 * `config` of a `cert` auth mount (reference: Vault `auth/cert/config`):
 * `disable_binding` (renewals of its tokens need not present the login's certificate
 * again) and `enable_identity_alias_metadata` (stored and shown; Cairn has no identity
 * store to copy metadata into). A write changes only the fields it gives.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { hasField } from '../../../../kernel/util/duration.js';
import type { SecretsPath } from '../../types.js';
import { readCertConfig, writeCertConfig } from './config.js';

const configPath: SecretsPath = {
  pattern: 'config',
  synopsis: 'Configure the cert method',
  fields: {
    disable_binding: Type.Boolean({ description: 'renewing a token does not need the certificate it logged in with' }),
    enable_identity_alias_metadata: Type.Boolean({ description: 'accepted and shown; Cairn has no identity aliases' }),
  },
  operations: {
    update: {
      summary: 'Write the config (fields not given keep their value)',
      handle: async (req) => {
        const c = await readCertConfig(req.storage);
        for (const f of ['disable_binding', 'enable_identity_alias_metadata'] as const) if (hasField(req.data, f)) c[f] = req.data[f] === true;
        await writeCertConfig(req.storage, c);
        return undefined;
      },
    },
    read: { summary: 'Read the config', handle: async (req) => ({ data: { ...(await readCertConfig(req.storage)) } }) },
  },
};

/** The config path of the cert method. */
export const certConfigPaths: readonly SecretsPath[] = [configPath];
