/**
 * `config` of a `cert` auth mount (reference: Vault `auth/cert/config`):
 * `disable_binding` (renewals of its tokens need not present the login's certificate
 * again) and `enable_identity_alias_metadata` (stored and shown; Cairn has no identity
 * store to copy metadata into). A write changes only the fields it gives.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { json, type Backend } from '../../../../kernel/store/index.js';
import { hasField } from '../../../../kernel/util/duration.js';
import type { SecretsPath } from '../../types.js';

/** The stored config. */
export interface CertConfig {
  disable_binding: boolean;
  enable_identity_alias_metadata: boolean;
}

const KEY = 'config';
const DEFAULTS: CertConfig = { disable_binding: false, enable_identity_alias_metadata: false };

/** The mount's config; the defaults (both false) when never written. */
export async function readCertConfig(storage: Backend): Promise<CertConfig> {
  return { ...DEFAULTS, ...json.decode<CertConfig>(await storage.get(KEY)) };
}

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
        await req.storage.put(KEY, json.encode(c));
        return undefined;
      },
    },
    read: { summary: 'Read the config', handle: async (req) => ({ data: { ...(await readCertConfig(req.storage)) } }) },
  },
};

/** The config path of the cert method. */
export const certConfigPaths: readonly SecretsPath[] = [configPath];
