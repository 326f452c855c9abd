/**
 * Passwords of database users: the reference's default password policy (no
 * `password_policy`: 20 characters of `[A-Za-z0-9-]` with at least one upper-case letter,
 * one lower-case letter, one digit and one dash; reference/secrets-engines.md §5), and
 * the SCRAM-SHA-256 verifier the PostgreSQL plugin sends instead of the password when a
 * connection has `password_authentication = "scram-sha-256"` (RFC 5802/7677, PostgreSQL's
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` form).
 *
 * @module
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, randomInt } from 'node:crypto';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALL = UPPER + LOWER + DIGITS + '-';
const LENGTH = 20;

const pick = (set: string) => set[randomInt(set.length)];

/** A new password by the reference's default policy (see the module doc). */
export function defaultPassword(): string {
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS), '-'];
  while (chars.length < LENGTH) chars.push(pick(ALL));
  // Fisher–Yates, so the required characters sit anywhere.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

/** PostgreSQL's default SCRAM iteration count (`scram_iterations`). */
const SCRAM_ITERATIONS = 4096;

/** The SCRAM-SHA-256 verifier of `password` with a fresh 16-byte salt (what `CREATE ROLE … PASSWORD '<verifier>'` stores as is). */
export function scramVerifier(password: string): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
