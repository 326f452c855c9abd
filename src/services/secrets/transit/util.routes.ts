/**
 * `hash(/:algorithm)` and `random(/:source)(/:bytes)` (reference/secrets-engines.md §6):
 * no key involved.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { decodeBase64 } from './ciphertext.js';
import { MAX_RANDOM_BYTES } from './limits.js';
import { hashOf } from './sign.js';

function format(v: unknown, dflt: 'hex' | 'base64'): 'hex' | 'base64' {
  const f = (v as string | undefined) || dflt;
  if (f !== 'hex' && f !== 'base64') throw badRequest(`format: unsupported encoding format "${f}"; must be "hex" or "base64"`);
  return f;
}

async function hash(req: SecretsRequest): Promise<SecretsResult> {
  if (req.data.input === undefined) throw badRequest('missing input');
  const input = decodeBase64(String(req.data.input), 'input');
  const f = format(req.data.format, 'hex');
  const algorithm = req.params.algorithm || (req.data.algorithm as string | undefined);
  return { data: { sum: hashOf(algorithm, input).toString(f) } };
}

const SOURCES = ['platform', 'seal', 'all'];

async function random(req: SecretsRequest): Promise<SecretsResult> {
  let source = req.params.source || (req.data.source as string | undefined) || 'platform';
  let bytesRaw: unknown = req.params.bytes || req.data.bytes;
  // `random/64` names the byte count, not a source (the reference's URL form).
  if (/^\d+$/.test(source) && !req.params.bytes) {
    bytesRaw = source;
    source = (req.data.source as string | undefined) || 'platform';
  }
  if (!SOURCES.includes(source)) throw badRequest(`source: unsupported entropy source "${source}"; must be platform, seal or all`);
  const bytes = bytesRaw === undefined ? 32 : Number(bytesRaw);
  if (!Number.isInteger(bytes) || bytes < 1) throw badRequest('bytes: must be a positive integer');
  if (bytes > MAX_RANDOM_BYTES) throw badRequest(`bytes: cannot be more than ${MAX_RANDOM_BYTES}`);
  return { data: { random_bytes: randomBytes(bytes).toString(format(req.data.format, 'base64')) } };
}

const hashSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Hash base64 input',
  params: { algorithm: 'hash algorithm (instead of the field)' },
  fields: {
    input: Type.String({ description: 'base64 input' }),
    algorithm: Type.String({ description: 'sha2-256 (default), sha1, sha2-224/384/512, sha3-224/256/384/512' }),
    format: Type.String({ description: 'hex (default) or base64' }),
  },
  operations: { update: { summary: 'Hash', handle: hash } },
});

const randomSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Random bytes from the platform generator',
  params: { source: 'platform, seal or all (all read the platform generator); or the byte count', bytes: 'how many bytes' },
  fields: {
    bytes: Type.Integer({ description: `how many bytes (32 default, at most ${MAX_RANDOM_BYTES})` }),
    format: Type.String({ description: 'base64 (default) or hex' }),
    source: Type.String({ description: 'platform (default), seal or all' }),
  },
  operations: { update: { summary: 'Random bytes', handle: random } },
});

/** The paths that need no key. */
export const utilPaths: readonly SecretsPath[] = [
  hashSpec('hash'),
  hashSpec('hash/:algorithm'),
  randomSpec('random'),
  randomSpec('random/:source'),
  randomSpec('random/:source/:bytes'),
];
