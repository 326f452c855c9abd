/**
 * Resource ids of the gateway's domain model: the reference's type prefixes (Boundary's
 * `globals` package) followed by `_` and ten base62 characters, e.g. `o_1234567890`.
 * The grant evaluation (grants.ts) derives a resource's type from its prefix, as the
 * reference does for `ids=…` in grant strings.
 *
 * @module
 */
import { createHash, randomInt } from 'node:crypto';

/** Resource types of the grant syntax (the reference's `type=` values) this controller knows. */
export type ResourceType =
  | 'scope'
  | 'auth-method'
  | 'account'
  | 'user'
  | 'group'
  | 'role'
  | 'auth-token'
  | 'host-catalog'
  | 'host-set'
  | 'host'
  | 'target'
  | 'credential-store'
  | 'credential-library'
  | 'credential'
  | 'session'
  | 'worker';

/** Id prefix → resource type (the reference's prefixes; later resources are known so grants naming them parse). */
const PREFIX_TYPES: Readonly<Record<string, ResourceType>> = {
  global: 'scope',
  o: 'scope',
  p: 'scope',
  ampw: 'auth-method',
  amoidc: 'auth-method',
  acctpw: 'account',
  acctoidc: 'account',
  u: 'user',
  g: 'group',
  r: 'role',
  at: 'auth-token',
  hcst: 'host-catalog',
  hcplg: 'host-catalog',
  hsst: 'host-set',
  hsplg: 'host-set',
  hst: 'host',
  hplg: 'host',
  ttcp: 'target',
  csvlt: 'credential-store',
  csst: 'credential-store',
  clvlt: 'credential-library',
  credup: 'credential',
  credjson: 'credential',
  credspk: 'credential',
  s: 'session',
  w: 'worker',
};

/** Id prefixes of what this controller creates. */
export const PREFIX = {
  org: 'o',
  project: 'p',
  passwordAuthMethod: 'ampw',
  passwordAccount: 'acctpw',
  user: 'u',
  group: 'g',
  role: 'r',
  authToken: 'at',
  oidcAuthMethod: 'amoidc',
  oidcAccount: 'acctoidc',
  hostCatalog: 'hcst',
  pluginHostCatalog: 'hcplg',
  hostSet: 'hsst',
  pluginHostSet: 'hsplg',
  pluginHost: 'hplg',
  host: 'hst',
  tcpTarget: 'ttcp',
  vaultStore: 'csvlt',
  staticStore: 'csst',
  vaultGenericLibrary: 'clvlt',
  usernamePasswordCredential: 'credup',
  jsonCredential: 'credjson',
  sshPrivateKeyCredential: 'credspk',
  session: 's',
} as const;

/** The global scope's fixed id. */
export const GLOBAL = 'global';
/** The anonymous principal: every request, with or without a token (the reference's `u_anon`). */
export const ANON_USER = 'u_anon';
/** Every authenticated user (the reference's `u_auth`). */
export const AUTH_USER = 'u_auth';
/** The static controller token's principal (the reference's recovery KMS user `u_recovery`). */
export const RECOVERY_USER = 'u_recovery';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh id: `<prefix>_` and ten random base62 characters. */
export function newId(prefix: string): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += BASE62[randomInt(62)];
  return `${prefix}_${s}`;
}

/** The resource type an id names by its prefix; undefined when the prefix is unknown. */
export function typeOfId(id: string): ResourceType | undefined {
  if (id === GLOBAL) return 'scope';
  const i = id.indexOf('_');
  return i > 0 ? PREFIX_TYPES[id.slice(0, i)] : undefined;
}

/** A stable id: `<prefix>_` and ten base62 characters derived from `key` (the same key gives the same id; a plugin host per instance). */
export function stableId(prefix: string, key: string): string {
  const digest = createHash('sha256').update(key, 'utf8').digest();
  let s = '';
  for (let i = 0; i < 10; i++) s += BASE62[digest[i] % 62];
  return `${prefix}_${s}`;
}
