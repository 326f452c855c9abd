/**
 * `login` of the AppRole method (reference/secrets.md §4.2; spec 000 "Authentication"
 * 3): unauthenticated; a known role ID with a live secret ID of that role yields an
 * orphan service token with the role's policies plus `default`, and uses the secret ID
 * up by one. Any mismatch gives the same 400.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { issueLoginToken } from '../login.js';
import { rolesOf, secretIdsOf } from './role.routes.js';

/** The one error text of a failed AppRole login (reference/secrets.md §4.2). */
export const INVALID_APPROLE = 'invalid role or secret ID';

const loginPath: SecretsPath = {
  pattern: 'login',
  synopsis: 'Log in with a role ID and a secret ID',
  description: 'Needs no token. Returns an `auth` block whose `client_token` carries the role\'s policies and `default`.',
  fields: {
    role_id: Type.String({ description: 'the role ID' }),
    secret_id: Type.String({ description: 'a secret ID issued for that role' }),
  },
  unauthenticated: true,
  operations: {
    update: {
      summary: 'Log in',
      required: ['role_id', 'secret_id'],
      handle: async (req) => {
        const found = await rolesOf(req).byRoleId(String(req.data.role_id));
        if (!found) throw badRequest(INVALID_APPROLE);
        const { name, role } = found;
        if (role.bind_secret_id && !(await secretIdsOf(req).consume(role.id, String(req.data.secret_id), req.now))) throw badRequest(INVALID_APPROLE);
        return issueLoginToken(req, { settings: role, meta: { role_name: name }, name: '', loginPath: 'login' });
      },
    },
  },
};

/** The login path of the AppRole method. */
export const approleLoginPaths: readonly SecretsPath[] = [loginPath];
