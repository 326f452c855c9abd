/**
 * The stored `config` of a `cert` auth mount (config.routes.ts serves it; renew.ts reads
 * `disable_binding`): one JSON entry at `config`.
 *
 * @module
 */
import { json, type Backend } from '../../../../kernel/store/index.js';

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

/** Stores the mount's config `c` (the whole entry). @throws the storage's error. */
export async function writeCertConfig(storage: Backend, c: CertConfig): Promise<void> {
  await storage.put(KEY, json.encode(c));
}
