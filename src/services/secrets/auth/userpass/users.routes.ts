/**
 * The userpass method's user management paths (reference/secrets.md §3.6, §4.2):
 * `users` (LIST), `users/:username` (create/update, read, delete) and
 * `users/:username/password` (change the password). Usernames are lower-cased; the
 * password is stored only as a scrypt hash and never returned.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { checkName } from '../login.js';
import { EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, applyTokenFields } from '../token-fields.js';
import { hashPassword } from '../../../../kernel/authn/password.js';
import { usersOf, userView, type UserEntry } from './users.js';

const Password = Type.String({ minLength: 1, description: 'the password; stored only as a scrypt hash' });

/** The lower-cased, checked username of the URL. */
const usernameOf = (req: SecretsRequest): string => checkName(req, req.params.username.toLowerCase());

const usersListPath: SecretsPath = {
  pattern: 'users',
  synopsis: 'List the users of this userpass method',
  operations: {
    list: { summary: 'List users', handle: async (req) => ({ data: { keys: await usersOf(req).list() } }) },
  },
};

/** Create or update a user: the hash is computed outside the lock, token fields are checked inside. */
async function writeUser(req: SecretsRequest): Promise<undefined> {
  const name = usernameOf(req);
  const d = req.data;
  applyTokenFields(d); // fail fast, before the costly hash; re-applied to the current user below
  const hash = d.password === undefined ? undefined : await hashPassword(String(d.password));
  await usersOf(req).update(name, async (current) => {
    const password_hash = hash ?? current?.password_hash;
    if (!password_hash) throw badRequest('missing required field "password"');
    const settings = applyTokenFields(d, current ?? EMPTY_TOKEN_SETTINGS);
    return { ...settings, password_hash } satisfies UserEntry;
  });
  return undefined;
}

const userPath: SecretsPath = {
  pattern: 'users/:username',
  synopsis: 'Manage one user: password and the policies and TTLs of its tokens',
  description:
    'Creating a user requires `password`. `token_policies` (alias `policies`) lists the policies of the tokens issued at login; `default` is always added. Reads never show the password.',
  params: { username: 'the username (case-insensitive; stored lower-cased)' },
  fields: { password: Password, ...TOKEN_FIELDS },
  exists: async (req) => (await usersOf(req).get(req.params.username.toLowerCase())) !== undefined,
  operations: {
    create: { summary: 'Create a user', required: ['password'], handle: writeUser },
    update: { summary: 'Update a user (fields not given keep their value)', handle: writeUser },
    read: {
      summary: 'Read a user (without the password)',
      handle: async (req) => {
        const u = await usersOf(req).get(usernameOf(req));
        return u && { data: userView(u) };
      },
    },
    delete: {
      summary: 'Delete a user',
      handle: async (req) => {
        await usersOf(req).delete(usernameOf(req));
        return undefined;
      },
    },
  },
};

const passwordPath: SecretsPath = {
  pattern: 'users/:username/password',
  synopsis: "Change a user's password",
  params: { username: 'the username (case-insensitive)' },
  fields: { password: Password },
  operations: {
    update: {
      summary: 'Set a new password',
      required: ['password'],
      handle: async (req) => {
        const name = usernameOf(req);
        const password_hash = await hashPassword(String(req.data.password));
        await usersOf(req).update(name, async (current) => {
          if (!current) throw badRequest(`user "${name}" does not exist`);
          return { ...current, password_hash };
        });
        return undefined;
      },
    },
  },
};

/** User management paths, most specific first. */
export const usersPaths: readonly SecretsPath[] = [usersListPath, passwordPath, userPath];
