/**
 * Reading a request's body under the listener's byte limit (`max_request_size`;
 * LIFECYCLE.md stage 2): a body past the limit fails with 413 without being buffered.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { CairnError } from './errors.js';

/** Default request body limit: 32 MiB (spec 000 "Limits"; reference/secrets.md §1.8). */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The body limit in bytes for `maxRequestBytes` (`max_request_size`): 0 or absent = 32 MiB, negative = unlimited (Infinity). */
export function bodyLimit(maxRequestBytes: number | undefined): number {
  if (maxRequestBytes === undefined || maxRequestBytes === 0) return DEFAULT_MAX_REQUEST_BYTES;
  return maxRequestBytes < 0 ? Infinity : maxRequestBytes;
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads the whole body of `req`. Errors: rejects with 413 (`payload_too_large`, `http:
 * request body too large`) past `limit` bytes, the rest left unread; with the stream's
 * error when the client goes away.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // No Content-Length and no Transfer-Encoding: the request has no body (RFC 9112 §6.3);
  // skip the stream round trip that most GETs would otherwise pay.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function tooLarge(): CairnError {
  return new CairnError('payload_too_large', 'http: request body too large');
}
