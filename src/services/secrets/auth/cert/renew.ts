/**
 * What renewing a `cert` login token takes (reference: Vault `builtin/credential/cert`
 * `pathLoginRenew`): unless the mount's `disable_binding` is set, the renewal must come
 * over a connection presenting a certificate that still verifies against the entry the
 * token logged in with, and it must be the login's certificate (same subject and
 * authority key identifiers). The entry must still exist with the same policies.
 *
 * @module
 */
import { badRequest } from '../../../../kernel/http/index.js';
import type { TokenEntry } from '../../token/store.js';
import type { SecretsRequest } from '../../types.js';
import { certsOf } from './certs.js';
import { readCertConfig } from './config.js';
import { hexColons, matchClientCertificate } from './verify.js';

/**
 * Checks the renewal of `token` (issued by the mount `req` targets). Errors (400): the
 * login errors of {@link matchClientCertificate}; `client identity during renewal not
 * matching client identity used during login`; `certificate entry "<name>" no longer
 * exists, not renewing`; `policies have changed, not renewing`.
 */
export async function checkCertRenewal(req: SecretsRequest, token: TokenEntry): Promise<void> {
  const name = token.meta?.cert_name ?? '';
  if (!(await readCertConfig(req.storage)).disable_binding) {
    const { facts } = await matchClientCertificate(req, name);
    if (hexColons(facts.subjectKeyId) !== token.meta?.subject_key_id || hexColons(facts.authorityKeyId) !== token.meta?.authority_key_id) {
      throw badRequest('client identity during renewal not matching client identity used during login');
    }
  }
  const entry = name ? await certsOf(req).get(name) : undefined;
  if (!entry) throw badRequest(`certificate entry "${name}" no longer exists, not renewing`);
  const want = new Set([...entry.token_policies, 'default']);
  if (want.size !== new Set(token.policies).size || !token.policies.every((p) => want.has(p))) throw badRequest('policies have changed, not renewing');
}
