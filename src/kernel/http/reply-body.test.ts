// Whole replies: Content-Length is the body's length in bytes for short and long string
// bodies (a long one is encoded to a Buffer once before writing: server.ts `write`) and
// for Buffer bodies, with multi-byte characters; HEAD sends the length and no body.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../log/logger.js';
import type { CairnError } from './errors.js';
import { listen, type HttpService } from './server.js';

const bodies: Record<string, string | Buffer> = {
  '/short': 'é€😀 short',
  '/long': 'é€😀 '.repeat(40_000),
  '/buffer': Buffer.from('bytes ✓'),
};

const service: HttpService = {
  handle: async (req) => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: bodies[req.path] }),
  renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
};

describe('whole replies', () => {
  it('Content-Length counts bytes, for short and long strings and Buffers; HEAD has no body', async () => {
    const l = await listen({ address: '127.0.0.1:0' }, service, silentLogger());
    try {
      for (const [path, body] of Object.entries(bodies)) {
        const bytes = Buffer.from(body);
        const res = await fetch(new URL(path, l.url));
        assert.equal(res.headers.get('content-length'), String(bytes.length), path);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes, path);
        const head = await fetch(new URL(path, l.url), { method: 'HEAD' });
        assert.equal(head.headers.get('content-length'), String(bytes.length), `HEAD ${path}`);
        assert.equal((await head.arrayBuffer()).byteLength, 0, `HEAD ${path}`);
      }
    } finally {
      await l.close();
    }
  });
});
