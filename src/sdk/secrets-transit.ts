/**
 * Typed helper for a transit engine mount (issue 28 item 2; reference/secrets-engines.md §6):
 * keys, encrypt/decrypt/rewrap, data keys, sign/verify, HMAC, hash, random, export and
 * backup/restore. Plaintexts and inputs are given as Buffers or UTF-8 strings and sent
 * base64-encoded; ciphertexts, signatures and HMACs are the server's `vault:v<N>:…` strings.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';

/** `data` of a key read (`GET <mount>/keys/<name>`); see the reference for every field. */
export interface TransitKeyInfo {
  name: string;
  type: string;
  /** Version → creation Unix seconds (symmetric) or `{creation_time, name, public_key}` (asymmetric). */
  keys: Record<string, unknown>;
  latest_version: number;
  min_decryption_version: number;
  min_encryption_version: number;
  min_available_version: number;
  deletion_allowed: boolean;
  derived: boolean;
  exportable: boolean;
  allow_plaintext_backup: boolean;
  /** Seconds; 0 = off. */
  auto_rotate_period: number;
  [extra: string]: unknown;
}

/** Settings of a new key (`POST <mount>/keys/<name>`). */
export interface TransitKeyOptions {
  /** `aes256-gcm96` (default), `aes128-gcm96`, `chacha20-poly1305`, `ed25519`, `ecdsa-p256|p384|p521`, `rsa-2048|3072|4096`. */
  type?: string;
  derived?: boolean;
  convergent_encryption?: boolean;
  exportable?: boolean;
  allow_plaintext_backup?: boolean;
  /** Seconds or a duration string (`"24h"`); 0 = off, else at least an hour. */
  auto_rotate_period?: number | string;
}

/** Settings of `POST <mount>/keys/<name>/config`. */
export interface TransitKeyConfig {
  min_decryption_version?: number;
  min_encryption_version?: number;
  deletion_allowed?: boolean;
  exportable?: boolean;
  allow_plaintext_backup?: boolean;
  auto_rotate_period?: number | string;
}

/** Options of encrypt, decrypt and rewrap. */
export interface TransitCryptOptions {
  /** Key-derivation context (derived keys). */
  context?: Buffer | string;
  /** Version to encrypt with (0 = latest). */
  keyVersion?: number;
  /** Data authenticated with the ciphertext but not encrypted (AEAD keys). */
  associatedData?: Buffer | string;
}

/** Options of sign and verify. */
export interface TransitSignOptions {
  /** `sha2-256` (default), `sha1`, `sha2-224/384/512`, `sha3-224/256/384/512`. */
  hashAlgorithm?: string;
  /** RSA: `pss` (default) or `pkcs1v15`. */
  signatureAlgorithm?: string;
  /** ECDSA: `asn1` (default) or `jws`. */
  marshalingAlgorithm?: string;
  prehashed?: boolean;
  context?: Buffer | string;
  keyVersion?: number;
}

/** One result of {@link TransitClient.encryptBatch}: a ciphertext, or the item's error. */
export interface TransitBatchResult {
  ciphertext?: string;
  key_version?: number;
  error?: string;
  reference?: string;
}

const b64 = (v: Buffer | string) => Buffer.from(v).toString('base64');
const opt = (v: Buffer | string | undefined) => (v === undefined ? undefined : b64(v));
const seg = encodeURIComponent;

function cryptBody(o: TransitCryptOptions) {
  return { context: opt(o.context), associated_data: opt(o.associatedData), key_version: o.keyVersion };
}

function signBody(o: TransitSignOptions) {
  return {
    hash_algorithm: o.hashAlgorithm,
    signature_algorithm: o.signatureAlgorithm,
    marshaling_algorithm: o.marshalingAlgorithm,
    prehashed: o.prehashed,
    context: opt(o.context),
    key_version: o.keyVersion,
  };
}

/**
 * A transit mount. Methods throw `SecretsApiError` on statuses ≥ 400 (400 with the engine's
 * message: `encryption key not found`, `ciphertext or signature version is disallowed by
 * policy (too old)`, …; 403 without the capability) and `SecretsConnectionError` without an answer.
 */
export class TransitClient {
  /** @param mount Mount path without slashes, e.g. `transit`. */
  constructor(
    private readonly client: SecretsTransport,
    private readonly mount: string,
  ) {}

  private path(...parts: string[]): string {
    return [this.mount, ...parts.map(seg)].join('/');
  }

  private async data<T>(p: Promise<{ data?: T | null } | undefined>): Promise<T> {
    const res = await p;
    return res!.data as T;
  }

  /** Creates key `name` (nothing changes when it exists); returns the key read. */
  createKey(name: string, options: TransitKeyOptions = {}): Promise<TransitKeyInfo> {
    return this.data(this.client.write<TransitKeyInfo>(this.path('keys', name), options));
  }

  /** Key `name`, or undefined when there is none. */
  async readKey(name: string): Promise<TransitKeyInfo | undefined> {
    return (await this.client.read<TransitKeyInfo>(this.path('keys', name)))?.data ?? undefined;
  }

  /** Names of the keys; `[]` when none. */
  async listKeys(): Promise<string[]> {
    return (await this.client.list(this.path('keys')))?.data?.keys ?? [];
  }

  /** Deletes key `name` (400 unless its `deletion_allowed` is set). */
  async deleteKey(name: string): Promise<void> {
    await this.client.delete(this.path('keys', name));
  }

  /** Changes the settings of key `name`; returns the key read. */
  configureKey(name: string, config: TransitKeyConfig): Promise<TransitKeyInfo> {
    return this.data(this.client.write<TransitKeyInfo>(this.path('keys', name, 'config'), config));
  }

  /** Makes a new latest version of key `name`; returns the key read. */
  rotateKey(name: string): Promise<TransitKeyInfo> {
    return this.data(this.client.write<TransitKeyInfo>(this.path('keys', name, 'rotate'), {}));
  }

  /** Deletes the versions of key `name` below `minAvailableVersion` for good; returns the key read. */
  trimKey(name: string, minAvailableVersion: number): Promise<TransitKeyInfo> {
    return this.data(this.client.write<TransitKeyInfo>(this.path('keys', name, 'trim'), { min_available_version: minAvailableVersion }));
  }

  /** Encrypts `plaintext` with key `name` (created when missing, given the `create` capability). */
  async encrypt(name: string, plaintext: Buffer | string, options: TransitCryptOptions = {}): Promise<{ ciphertext: string; key_version: number }> {
    return this.data(this.client.write(this.path('encrypt', name), { plaintext: b64(plaintext), ...cryptBody(options) }));
  }

  /**
   * Encrypts each item with key `name` in one request. Items that fail carry `error`; the
   * request answers 200 while at least one item succeeds (`partial_failure_response_code`),
   * and throws when every item fails.
   */
  async encryptBatch(
    name: string,
    items: readonly { plaintext: Buffer | string; context?: Buffer | string; reference?: string }[],
  ): Promise<TransitBatchResult[]> {
    const batch_input = items.map((i) => ({ plaintext: b64(i.plaintext), context: opt(i.context), reference: i.reference }));
    const data = await this.data<{ batch_results: TransitBatchResult[] }>(
      this.client.write(this.path('encrypt', name), { batch_input, partial_failure_response_code: 200 }),
    );
    return data.batch_results;
  }

  /** The plaintext of `ciphertext`. */
  async decrypt(name: string, ciphertext: string, options: Omit<TransitCryptOptions, 'keyVersion'> = {}): Promise<Buffer> {
    const data = await this.data<{ plaintext: string }>(this.client.write(this.path('decrypt', name), { ciphertext, ...cryptBody(options) }));
    return Buffer.from(data.plaintext, 'base64');
  }

  /** `ciphertext` re-encrypted with the latest (or `keyVersion`) version of key `name`. */
  async rewrap(name: string, ciphertext: string, options: TransitCryptOptions = {}): Promise<string> {
    const data = await this.data<{ ciphertext: string }>(this.client.write(this.path('rewrap', name), { ciphertext, ...cryptBody(options) }));
    return data.ciphertext;
  }

  /** A new random data key of `bits` (128, 256, 512) encrypted with key `name`; `plaintext` as well for `kind` `plaintext`. */
  async dataKey(name: string, kind: 'plaintext' | 'wrapped', bits = 256): Promise<{ ciphertext: string; plaintext?: Buffer }> {
    const data = await this.data<{ ciphertext: string; plaintext?: string }>(this.client.write(this.path('datakey', kind, name), { bits }));
    return { ciphertext: data.ciphertext, ...(data.plaintext ? { plaintext: Buffer.from(data.plaintext, 'base64') } : {}) };
  }

  /** The signature (`vault:v<N>:…`) of `input` with key `name`. */
  async sign(name: string, input: Buffer | string, options: TransitSignOptions = {}): Promise<string> {
    const data = await this.data<{ signature: string }>(this.client.write(this.path('sign', name), { input: b64(input), ...signBody(options) }));
    return data.signature;
  }

  /** Whether `signature` is a valid signature of `input` with key `name`. */
  async verify(name: string, input: Buffer | string, signature: string, options: TransitSignOptions = {}): Promise<boolean> {
    const body = { input: b64(input), signature, ...signBody(options) };
    return (await this.data<{ valid: boolean }>(this.client.write(this.path('verify', name), body))).valid;
  }

  /** The HMAC (`vault:v<N>:…`) of `input` with key `name`'s HMAC key; `algorithm` `sha2-256` by default. */
  async hmac(name: string, input: Buffer | string, algorithm?: string): Promise<string> {
    return (await this.data<{ hmac: string }>(this.client.write(this.path('hmac', name), { input: b64(input), algorithm }))).hmac;
  }

  /** Whether `hmac` is the HMAC of `input` with key `name`. */
  async verifyHmac(name: string, input: Buffer | string, hmac: string, algorithm?: string): Promise<boolean> {
    return (await this.data<{ valid: boolean }>(this.client.write(this.path('verify', name), { input: b64(input), hmac, algorithm }))).valid;
  }

  /** The digest of `input` (`sha2-256` by default), hex unless `format` is `base64`. */
  async hash(input: Buffer | string, algorithm?: string, format?: 'hex' | 'base64'): Promise<string> {
    return (await this.data<{ sum: string }>(this.client.write(this.path('hash'), { input: b64(input), algorithm, format }))).sum;
  }

  /** `bytes` random bytes from the server. */
  async random(bytes = 32): Promise<Buffer> {
    const data = await this.data<{ random_bytes: string }>(this.client.write(this.path('random'), { bytes }));
    return Buffer.from(data.random_bytes, 'base64');
  }

  /** Key material of key `name` by version (`encryption-key`, `signing-key`, `hmac-key` need `exportable`; `public-key` does not). */
  async exportKey(
    name: string,
    keyType: 'encryption-key' | 'signing-key' | 'hmac-key' | 'public-key',
    version?: number | 'latest',
  ): Promise<Record<string, string>> {
    const parts = version === undefined ? ['export', keyType, name] : ['export', keyType, name, String(version)];
    return (await this.data<{ keys: Record<string, string> }>(this.client.read(this.path(...parts)))).keys;
  }

  /** A plaintext backup of key `name` (needs `exportable` and `allow_plaintext_backup`). */
  async backupKey(name: string): Promise<string> {
    return (await this.data<{ backup: string }>(this.client.read(this.path('backup', name)))).backup;
  }

  /** Restores a key from `backup`, as `options.name` or its own name; `force` replaces an existing key. */
  async restoreKey(backup: string, options: { name?: string; force?: boolean } = {}): Promise<void> {
    const path = options.name ? this.path('restore', options.name) : this.path('restore');
    await this.client.write(path, { backup, ...(options.force ? { force: true } : {}) });
  }
}
