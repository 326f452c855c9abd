/**
 * `login` of a `cert` auth mount (reference: Vault `auth/cert/login`): unauthenticated;
 * the credential is the TLS client certificate of the connection (signed along by an HA
 * standby that forwards the request), optionally limited to the trusted entry `name`.
 * The token's metadata describes the certificate (`cert_name`, `common_name`,
 * `serial_number`, `subject_key_id`, `authority_key_id`); its display name is
 * `cert-<display_name>`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath } from '../../types.js';
import { loginRoute } from '../login-route.js';
import { hexColons, matchClientCertificate } from './verify.js';

const loginPath: SecretsPath = loginRoute({
  synopsis: 'Log in with the TLS client certificate of the connection',
  description: 'Needs no token, but a TLS connection on which the client presented its certificate. Returns an `auth` block.',
  fields: { name: Type.String({ description: 'the trusted certificate entry to log in against; empty = any that matches' }) },
  find: (req) => matchClientCertificate(req, req.data.name === undefined ? '' : String(req.data.name)),
  boundCidrs: ({ entry }) => entry.token_bound_cidrs,
  token: (_req, { name, entry, facts }) => ({
    settings: entry,
    meta: {
      cert_name: name,
      common_name: facts.commonName,
      serial_number: facts.serialNumber,
      subject_key_id: hexColons(facts.subjectKeyId),
      authority_key_id: hexColons(facts.authorityKeyId),
    },
    name: entry.display_name,
    loginPath: 'login',
  }),
});

/** The login path of the cert method. */
export const certLoginPaths: readonly SecretsPath[] = [loginPath];
