/**
 * The token helper: a file holding the token `cairn login` obtained, read by every command
 * when `SECRETS_TOKEN` is not set (like the reference CLI's `~/.vault-token`). The file is
 * `~/.cairn-token`, or `CAIRN_TOKEN_PATH` when set; it is written with mode 0600.
 *
 * @module
 */
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** File name of the token helper in the home directory. */
const TOKEN_FILE_NAME = '.cairn-token';

/** Where the token is kept: `CAIRN_TOKEN_PATH`, else `<HOME>/.cairn-token` (`HOME` from `env`, then the OS). */
export function tokenHelperPath(env: Record<string, string | undefined>): string {
  if (env.CAIRN_TOKEN_PATH) return env.CAIRN_TOKEN_PATH;
  return join(env.HOME || homedir(), TOKEN_FILE_NAME);
}

/** The stored token with surrounding white space removed; `undefined` when there is no file or it is empty. */
export function readStoredToken(env: Record<string, string | undefined>): string | undefined {
  let text: string;
  try {
    text = readFileSync(tokenHelperPath(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the token helper file ${tokenHelperPath(env)}: ${(err as Error).message}`);
  }
  const token = text.trim();
  return token === '' ? undefined : token;
}

/**
 * Replaces the stored token: writes a temporary file with mode 0600 next to the target, then
 * renames it over the target, so readers never see half a token.
 *
 * @throws Error when the directory is not writable.
 */
export function storeToken(env: Record<string, string | undefined>, token: string): void {
  const path = tokenHelperPath(env);
  const tmp = join(dirname(path), `.${TOKEN_FILE_NAME}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, token, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Deletes the stored token; no error when there is none. */
export function eraseToken(env: Record<string, string | undefined>): void {
  rmSync(tokenHelperPath(env), { force: true });
}
