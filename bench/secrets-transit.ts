/**
 * Transit encryption (issue 28 "Measure"): `POST /v1/transit/encrypt/bench` with 1 KiB of
 * plaintext, root token, an aes256-gcm96 key; beside it, in the same interleaved run, a
 * bare node:http server (`bare-aes`, {@link startBareAes}) that parses the same JSON body,
 * base64-decodes the plaintext, seals it with AES-256-GCM under a random 96-bit nonce and
 * answers `{"data":{"ciphertext":"vault:v1:…"}}` — the crypto and the JSON with nothing of
 * the service around them.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { listenBare, type BareServer } from './bare-server.js';
import { api, type RequestTemplate, type Scenario } from './harness.js';

/** The request body of both scenarios: 1 KiB of random plaintext, base64. */
const BODY = JSON.stringify({ plaintext: randomBytes(1024).toString('base64') });
const HEADERS = { 'content-type': 'application/json' };

export const transitEncrypt: Scenario = {
  name: 'transit-encrypt',
  description: 'POST /v1/transit/encrypt/bench, root token, aes256-gcm96, 1 KiB plaintext',
  server: 'secrets',
  async setup(ctx) {
    const server = ctx.servers.secrets;
    await api(server, 'POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } });
    await api(server, 'POST', '/v1/transit/keys/bench');
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    const r = await api(server, 'POST', '/v1/transit/encrypt/bench', { body: JSON.parse(BODY) });
    const ciphertext = (r.json as { data?: { ciphertext?: string } }).data?.ciphertext ?? '';
    if (!/^vault:v1:/.test(ciphertext)) throw new Error(`transit-encrypt check: unexpected reply ${r.text.slice(0, 300)}`);
    const d = await api(server, 'POST', '/v1/transit/decrypt/bench', { body: { ciphertext } });
    if ((d.json as { data?: { plaintext?: string } }).data?.plaintext !== JSON.parse(BODY).plaintext) {
      throw new Error('transit-encrypt check: the ciphertext did not decrypt to the plaintext');
    }
  },
  requests(ctx): RequestTemplate[] {
    return [{ method: 'POST', path: '/v1/transit/encrypt/bench', headers: { ...HEADERS, 'X-Secrets-Token': ctx.servers.secrets.token! }, body: BODY }];
  },
};

export const bareAesEncrypt: Scenario = {
  name: 'bare-aes',
  description: 'bare node:http POST: JSON parse, base64 decode, AES-256-GCM seal of 1 KiB, JSON reply (transit-encrypt without the service)',
  server: 'bare-aes',
  async check(ctx) {
    const r = await fetch(`${ctx.servers['bare-aes'].url}/encrypt`, { method: 'POST', headers: HEADERS, body: BODY });
    const body = (await r.json()) as { data?: { ciphertext?: string } };
    if (!r.ok || !/^vault:v1:/.test(body.data?.ciphertext ?? '')) throw new Error(`bare-aes check: ${r.status} ${JSON.stringify(body).slice(0, 200)}`);
  },
  requests: () => [{ method: 'POST', path: '/encrypt', headers: HEADERS, body: BODY }],
};

/** The `bare-aes` server of bench/child.ts: see the module doc. Answers 400 to a body without `plaintext`. */
export async function startBareAes(): Promise<BareServer> {
  const key = randomBytes(32);
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let plaintext: string | undefined;
      try {
        plaintext = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { plaintext?: string }).plaintext;
      } catch {
        plaintext = undefined;
      }
      if (typeof plaintext !== 'string') {
        res.writeHead(400, HEADERS).end('{"errors":["missing plaintext"]}');
        return;
      }
      const nonce = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, nonce);
      const sealed = Buffer.concat([nonce, c.update(Buffer.from(plaintext, 'base64')), c.final(), c.getAuthTag()]);
      const body = Buffer.from(JSON.stringify({ data: { ciphertext: `vault:v1:${sealed.toString('base64')}`, key_version: 1 } }));
      res.writeHead(200, { ...HEADERS, 'cache-control': 'no-store', 'content-length': body.length });
      res.end(body);
    });
  });
  return listenBare('bare-aes', server, () => requests);
}
