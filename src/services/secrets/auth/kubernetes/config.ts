/**
 * The stored `config` of a `kubernetes` auth mount (config.routes.ts serves it; the login
 * reads it): one JSON entry at `config`, and the kernel's view of it.
 *
 * @module
 */
import type { KubernetesConfig } from '../../../../kernel/authn/index.js';
import { json, type Backend } from '../../../../kernel/store/index.js';

/** The stored config. */
export interface K8sConfig {
  kubernetes_host: string;
  kubernetes_ca_cert: string;
  token_reviewer_jwt: string;
  disable_local_ca_jwt: boolean;
}

const KEY = 'config';

/** Reads the mount's config; undefined when never written. */
export async function readK8sConfig(storage: Backend): Promise<K8sConfig | undefined> {
  return json.decode<K8sConfig>(await storage.get(KEY));
}

/** The kernel's view of `c`. */
export function kernelConfig(c: K8sConfig): KubernetesConfig {
  return { host: c.kubernetes_host, caCert: c.kubernetes_ca_cert, serviceAccountJWT: c.token_reviewer_jwt };
}

/** Stores the mount's config `c` (replacing it). @throws the storage's error. */
export async function writeK8sConfig(storage: Backend, c: K8sConfig): Promise<void> {
  await storage.put(KEY, json.encode(c));
}
