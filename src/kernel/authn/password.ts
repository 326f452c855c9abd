/**
 * Password hashing for the secrets service's userpass method and the access gateway's
 * password auth method: scrypt (memory-hard) with a random 16-byte
 * salt per hash; the parameters are stored with the hash so they can be raised later
 * without breaking old entries. Verification compares in constant time, and a missing
 * user is verified against a dummy hash so unknown and known users cost the same
 * (reference/secrets.md §4.2: one error text for both).
 *
 * @module
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** A stored password hash. `salt` and `hash` are base64. */
export interface PasswordHash {
  readonly alg: 'scrypt';
  /** CPU/memory cost (power of two). */
  readonly N: number;
  /** Block size. */
  readonly r: number;
  /** Parallelisation. */
  readonly p: number;
  readonly salt: string;
  readonly hash: string;
}

/**
 * Parameters of new hashes: N=2^15, r=8, p=1, 32-byte key: 32 MiB per hash, measured
 * ≈210 ms on one core of the 2-vCPU dev VM (≈4-14 userpass logins/s there). Stored per
 * hash, so raising them later only affects new and changed passwords.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Refuse stored parameters beyond this memory (a corrupt entry must not exhaust memory). */
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const memory = 128 * o.N * o.r;
  const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 2 * memory + 1024 * 1024 };
  if (memory > MAX_MEMORY_BYTES) return Promise.reject(new Error(`scrypt parameters too large: N=${o.N} r=${o.r}`));
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Hashes `password` with a fresh random salt and {@link SCRYPT_PARAMS}. */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_PARAMS);
  return { alg: 'scrypt', ...SCRYPT_PARAMS, salt: salt.toString('base64'), hash: key.toString('base64') };
}

/** A hash nobody's password matches (random key), computed with the current parameters. */
const DUMMY: PasswordHash = {
  alg: 'scrypt',
  ...SCRYPT_PARAMS,
  salt: randomBytes(SALT_BYTES).toString('base64'),
  hash: randomBytes(KEY_BYTES).toString('base64'),
};

/**
 * Whether `password` matches `stored`. With `stored` undefined (unknown user) the
 * password is hashed against a dummy entry anyway and the result is false, so both
 * cases take about the same time. Constant-time comparison.
 */
export async function verifyPassword(password: string, stored: PasswordHash | undefined): Promise<boolean> {
  const h = stored ?? DUMMY;
  const expected = Buffer.from(h.hash, 'base64');
  const actual = await derive(password, Buffer.from(h.salt, 'base64'), h);
  const same = actual.length === expected.length && timingSafeEqual(actual, expected);
  return same && stored !== undefined;
}
