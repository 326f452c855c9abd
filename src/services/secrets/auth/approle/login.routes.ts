/**
 * `login` of the AppRole method (reference/secrets.md §4.2; spec 000 "Authentication"
 * 3): unauthenticated; a known role ID with a live secret ID of that role (when the role
 * binds one) yields an orphan service token with the role's policies plus `default`, and
 * uses the secret ID up by one. Any credential mismatch gives the same 400; a client
 * outside the role's or the secret ID's CIDR blocks gets the reference's CIDR text.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import { addressInCidrs } from '../../../../kernel/util/cidr.js';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { loginRoute } from '../login-route.js';
import { rolesOf } from './roles.js';
import { secretIdsOf, type SecretIdEntry } from './secret-ids.js';

/** The one error text of a failed AppRole login (reference/secrets.md §4.2). */
const INVALID_APPROLE = 'invalid role or secret ID';

/** Errors (400): the client is outside `cidrs` (non-empty), with the reference's text naming `what`. */
function checkSource(req: SecretsRequest, cidrs: readonly string[] | undefined, what: string): void {
  if (cidrs?.length && !addressInCidrs(req.remoteAddress, cidrs))
    throw badRequest(`source address ${JSON.stringify(req.remoteAddress)} unauthorized by CIDR restrictions on the ${what}`);
}

const loginPath: SecretsPath = loginRoute({
  synopsis: 'Log in with a role ID and a secret ID',
  description:
    "Needs no token. Returns an `auth` block whose `client_token` carries the role's policies and `default`, the secret ID's metadata and `role_name`, and is bound to the secret ID's `token_bound_cidrs` (else the role's).",
  fields: {
    role_id: Type.String({ description: 'the role ID' }),
    secret_id: Type.String({ description: 'a secret ID issued for that role (required unless the role has bind_secret_id off)' }),
  },
  required: ['role_id'],
  // The CIDR checks are AppRole's own (secret_id_bound_cidrs, the secret ID's cidr_list; 400 with the reference's text).
  find: async (req) => {
    const found = await rolesOf(req).byRoleId(String(req.data.role_id));
    if (!found) throw badRequest(INVALID_APPROLE);
    const { name, role } = found;
    checkSource(req, role.secret_id_bound_cidrs, 'role');
    let entry: SecretIdEntry | undefined;
    if (role.bind_secret_id) {
      if (req.data.secret_id === undefined) throw badRequest('missing required field "secret_id"');
      entry = await secretIdsOf(req).consume(role.id, String(req.data.secret_id), req.now, (e) => checkSource(req, e.cidr_list, 'secret ID'));
      if (!entry) throw badRequest(INVALID_APPROLE);
    }
    return { name, role, entry };
  },
  token: (_req, { name, role, entry }) => ({
    settings: role,
    meta: { ...(entry?.metadata ?? {}), role_name: name },
    name: '',
    loginPath: 'login',
    boundCidrs: entry?.token_bound_cidrs,
  }),
});

/** The login path of the AppRole method. */
export const approleLoginPaths: readonly SecretsPath[] = [loginPath];
