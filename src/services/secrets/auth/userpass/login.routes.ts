/**
 * `login/:username` of the userpass method (reference/secrets.md §4.2; spec 000
 * "Authentication" 3): unauthenticated; a correct password yields an orphan service
 * token with the user's policies plus `default`. A wrong password and an unknown user
 * give the same 400 after the same scrypt work.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { loginRoute } from '../login-route.js';
import { verifyPassword } from '../../../../kernel/authn/password.js';
import { usersOf } from './users.js';

/** The one error text of a failed userpass login (reference/secrets.md §4.2). */
const INVALID_USERPASS = 'invalid username or password';

const loginPath: SecretsPath = loginRoute({
  pattern: 'login/:username',
  synopsis: 'Log in with a username and password',
  description: "Needs no token. Returns an `auth` block whose `client_token` carries the user's policies and `default`.",
  params: { username: 'the username (case-insensitive)' },
  fields: { password: Type.String({ description: "the user's password" }) },
  required: ['password'],
  find: async (req) => {
    const name = req.params.username.toLowerCase();
    const user = await usersOf(req).get(name);
    const ok = await verifyPassword(String(req.data.password), user?.password_hash);
    if (!ok || !user) throw badRequest(INVALID_USERPASS);
    return { name, user };
  },
  token: (_req, { name, user }) => ({ settings: user, meta: { username: name }, name, loginPath: `login/${name}` }),
});

/** The login path of the userpass method. */
export const userpassLoginPaths: readonly SecretsPath[] = [loginPath];
