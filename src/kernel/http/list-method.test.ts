// Tests for the LIST method shim (reference/ecosystem.md §1): raw sockets, curl, pipelining
// across arbitrary chunk splits, 100-continue, Upgrade passthrough, TLS, smuggling defences.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { selfSignedCert } from './testdata/self-signed.js';
import { createHttpServer, ListIncomingMessage } from './list-method.js';

const run = promisify(execFile);

interface Echo {
  method: string;
  url: string;
  body: string; // latin1, so bytes compare exactly
  trailers?: Record<string, string | undefined>;
}

function echo(req: http.IncomingMessage, res: http.ServerResponse): void {
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    const out: Echo = { method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(parts).toString('latin1') };
    if (Object.keys(req.trailers).length > 0) out.trailers = req.trailers;
    const json = JSON.stringify(out);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  });
}

interface Harness {
  server: http.Server;
  port: number;
  tls: boolean;
  /** Bytes each server-side connection has received, by the client's local port. */
  received: { get(port: number): number | undefined };
  /** The server-side sockets, by the client's local port. */
  sockets: Map<number, net.Socket>;
}

/**
 * Listens on a free port. `count` = how the harness learns what the server has read:
 * `'data'` by a `'data'` listener of its own on every connection, which moves node:http
 * off its native read path (the framer then runs from the first byte); `'bytesRead'`
 * from `socket.bytesRead`, which leaves the native path alone (the hand-off on LIST).
 */
async function start(server: http.Server, isTls: boolean, count: 'data' | 'bytesRead' = 'data'): Promise<Harness> {
  const received = new Map<number, number>();
  const sockets = new Map<number, net.Socket>();
  server.on(isTls ? 'secureConnection' : 'connection', (s: net.Socket) => {
    const port = s.remotePort ?? 0;
    sockets.set(port, s);
    if (count === 'data') s.on('data', (d: Buffer) => received.set(port, (received.get(port) ?? 0) + d.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const got = count === 'data' ? received : { get: (port: number) => sockets.get(port)?.bytesRead };
  return { server, port: (server.address() as net.AddressInfo).port, tls: isTls, received: got, sockets };
}

function connect(h: Harness): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = h.tls
      ? tls.connect({ host: '127.0.0.1', port: h.port, rejectUnauthorized: false }, () => resolve(s))
      : net.connect({ host: '127.0.0.1', port: h.port }, () => resolve(s));
    s.setNoDelay(true);
    s.once('error', reject);
  });
}

/**
 * Writes `pieces` in order, each only after the server has read everything before it, so
 * every piece reaches the framer as its own chunk. Resolves with all bytes received until
 * the server closes the connection.
 */
async function exchange(h: Harness, pieces: Buffer[]): Promise<Buffer> {
  const s = await connect(h);
  const got: Buffer[] = [];
  s.on('data', (d: Buffer) => got.push(d));
  const closed = new Promise<void>((resolve) => s.on('close', () => resolve()));
  const timer = setTimeout(() => s.destroy(), 5000);
  let sent = 0;
  for (const p of pieces) {
    const port = s.localPort ?? 0;
    while ((h.received.get(port) ?? 0) < sent && !s.destroyed) await new Promise((r) => setImmediate(r));
    s.write(p);
    sent += p.length;
  }
  await closed;
  clearTimeout(timer);
  return Buffer.concat(got);
}

interface Response {
  status: string; // the status line
  headers: Record<string, string>;
  body: string;
}

/** Splits a byte stream into HTTP/1.1 responses (bodies by Content-Length, else none). */
function parseResponses(data: Buffer): Response[] {
  const text = data.toString('latin1');
  const out: Response[] = [];
  let i = 0;
  while (i < text.length) {
    const end = text.indexOf('\r\n\r\n', i);
    assert.ok(end >= 0, `truncated response: ${JSON.stringify(text.slice(i))}`);
    const [status, ...lines] = text.slice(i, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const len = Number(headers['content-length'] ?? 0);
    out.push({ status, headers, body: text.slice(end + 4, end + 4 + len) });
    i = end + 4 + len;
  }
  return out;
}

const echoes = (data: Buffer): Echo[] =>
  parseResponses(data).map((r) => {
    assert.equal(r.status, 'HTTP/1.1 200 OK');
    return JSON.parse(r.body) as Echo;
  });

/** Polls `cond` every 5 ms; throws after 5 s so a stalled connection fails the test. */
async function waitFor(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${cond}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Per-test limit, so a framing bug that stalls a connection fails instead of hanging. */
const T = { timeout: 10_000 };

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

// The 8 pipelined requests of reference/ecosystem.md §1, with what the handler must see.
const postBody = 'x\r\n\r\nLIST /evil HTTP/1.1\r\n\r\nLINK /evil2 HTTP/1.1\r\n\r\n';
const chunkTail = '\r\nLIST /c HTTP/1';
const pipeline = b(
  'GET /1 HTTP/1.1\r\nHost: x\r\n\r\n' +
    'LIST /2 HTTP/1.1\r\nHost: x\r\n\r\n' +
    `POST /3 HTTP/1.1\r\nHost: x\r\nContent-Length: ${postBody.length}\r\n\r\n${postBody}` +
    '\r\nLIST /4 HTTP/1.1\r\nHost: x\r\n\r\n' +
    'PUT /5 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
    `5;ext="LIST /x"\r\nLIST \r\n${chunkTail.length.toString(16)}\r\n${chunkTail}\r\n0\r\nLIST-T: y\r\nX-T: LIST /t\r\n\r\n` +
    'LIST /6 HTTP/1.1\r\nHost: x\r\n\r\n' +
    'DELETE /7 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nLIST' +
    'LIST /8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
);
const expected: Echo[] = [
  { method: 'GET', url: '/1', body: '' },
  { method: 'LIST', url: '/2', body: '' },
  { method: 'POST', url: '/3', body: postBody },
  { method: 'LIST', url: '/4', body: '' },
  { method: 'PUT', url: '/5', body: `LIST ${chunkTail}`, trailers: { 'x-t': 'LIST /t', 'list-t': 'y' } },
  { method: 'LIST', url: '/6', body: '' },
  { method: 'DELETE', url: '/7', body: 'LIST' },
  { method: 'LIST', url: '/8', body: '' },
];

/** Deterministic PRNG (mulberry32) so a failing split can be reproduced. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomSplit(buf: Buffer, rnd: () => number): Buffer[] {
  const cuts = new Set<number>();
  const n = 1 + Math.floor(rnd() * 30);
  for (let k = 0; k < n; k++) cuts.add(1 + Math.floor(rnd() * (buf.length - 1)));
  const sorted = [0, ...[...cuts].sort((x, y) => x - y), buf.length];
  return sorted.slice(1).map((end, k) => buf.subarray(sorted[k], end));
}

async function curl(args: string[]): Promise<{ code: string; body: string }> {
  const r = await run('curl', ['-s', '-o', '-', '-w', '\n%{http_code}', ...args]);
  const nl = r.stdout.lastIndexOf('\n');
  return { code: r.stdout.slice(nl + 1), body: r.stdout.slice(0, nl) };
}

const hasCurl = await run('curl', ['--version']).then(
  () => true,
  () => false,
);

async function close(h: Harness): Promise<void> {
  h.server.closeAllConnections();
  await new Promise((r) => h.server.close(r));
}

describe('LIST over plain HTTP', () => {
  let h: Harness;
  before(async () => {
    const server = createHttpServer({}, echo) as http.Server;
    // An echo protocol: answer 101, then send back every byte unchanged.
    server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Method: ${req.method}\r\n\r\n`);
      socket.write(head);
      socket.on('data', (d: Buffer) => socket.write(d));
      socket.on('end', () => socket.end());
      socket.on('error', () => socket.destroy());
    });
    h = await start(server, false);
  });
  after(() => close(h));

  test('raw LIST is seen as LIST, raw LINK gets 400', T, async () => {
    const got = echoes(await exchange(h, [b('LIST /v1/secret/metadata/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
    assert.deepEqual(got, [{ method: 'LIST', url: '/v1/secret/metadata/', body: '' }]);
    const link = parseResponses(await exchange(h, [b('LINK /x HTTP/1.1\r\nHost: x\r\n\r\n')]));
    assert.deepEqual(
      link.map((r) => r.status),
      ['HTTP/1.1 400 Bad Request'],
    );
  });

  test('near-misses of LIST and LINK get 400', T, async () => {
    for (const m of ['LISK', 'LISTEN', 'LINKS', 'LIS', 'LIST\t']) {
      const r = parseResponses(await exchange(h, [b(`${m} /x HTTP/1.1\r\nHost: x\r\n\r\n`)]));
      assert.deepEqual(
        r.map((x) => x.status),
        ['HTTP/1.1 400 Bad Request'],
        m,
      );
    }
  });

  test('curl -X LIST works, curl -X LINK gets 400', { ...T, skip: !hasCurl && 'curl not installed' }, async () => {
    const url = `http://127.0.0.1:${h.port}/v1/secret/metadata/`;
    const list = await curl(['-X', 'LIST', url]);
    assert.equal(list.code, '200');
    assert.deepEqual(JSON.parse(list.body), { method: 'LIST', url: '/v1/secret/metadata/', body: '' });
    const withBody = await curl(['-X', 'LIST', '-d', '{"x":1}', '-H', 'Transfer-Encoding: chunked', url]);
    assert.deepEqual(JSON.parse(withBody.body), { method: 'LIST', url: '/v1/secret/metadata/', body: '{"x":1}' });
    const http10 = await curl(['--http1.0', '-X', 'LIST', url]);
    assert.equal(JSON.parse(http10.body).method, 'LIST');
    assert.equal((await curl(['-X', 'LINK', url])).code, '400');
  });

  test('8 pipelined requests in one write', T, async () => {
    assert.deepEqual(echoes(await exchange(h, [pipeline])), expected);
  });

  test('8 pipelined requests written one byte at a time', T, async () => {
    const bytes = [...pipeline].map((_, k) => pipeline.subarray(k, k + 1));
    assert.deepEqual(echoes(await exchange(h, bytes)), expected);
  });

  test('8 pipelined requests in 50 random splits', T, async () => {
    const rnd = prng(20240601);
    for (let k = 0; k < 50; k++) {
      const pieces = randomSplit(pipeline, rnd);
      assert.deepEqual(echoes(await exchange(h, pieces)), expected, `split ${pieces.map((p) => p.length).join(',')}`);
    }
  });

  test('Expect: 100-continue with LIST gets 100 then the response', T, async () => {
    const s = await connect(h);
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    const closed = new Promise((r) => s.on('close', r));
    s.write('LIST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    await waitFor(() => got.includes('\r\n\r\n') || s.destroyed);
    assert.equal(got, 'HTTP/1.1 100 Continue\r\n\r\n');
    s.write('hello');
    await closed;
    const [cont, final] = parseResponses(Buffer.from(got, 'latin1'));
    assert.equal(cont.status, 'HTTP/1.1 100 Continue');
    assert.equal(final.status, 'HTTP/1.1 200 OK');
    assert.deepEqual(JSON.parse(final.body), { method: 'LIST', url: '/c', body: 'hello' });
  });

  test('bytes after an Upgrade pass through untouched', T, async () => {
    const upgrade = 'LIST /up HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n';
    const raw = 'LIST /raw HTTP/1.1\r\nLINK /raw2 HTTP/1.1\r\n\r\n';
    for (const pieces of [[upgrade + raw], [upgrade, raw]]) {
      const s = await connect(h);
      try {
        let got = '';
        s.on('data', (d: Buffer) => (got += d.toString('latin1')));
        s.write(pieces[0]);
        await waitFor(() => got.includes('\r\n\r\n'));
        if (pieces[1]) s.write(pieces[1]);
        const head = got.slice(0, got.indexOf('\r\n\r\n') + 4);
        assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
        assert.match(head, /\r\nX-Method: LIST\r\n/);
        await waitFor(() => got.length >= head.length + raw.length);
        assert.equal(got.slice(head.length), raw);
      } finally {
        s.destroy();
      }
    }
  });
});

describe('smuggling defences stay intact', () => {
  let h: Harness;
  before(async () => {
    h = await start(createHttpServer({}, echo) as http.Server, false);
  });
  after(() => close(h));

  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
  const cases: Record<string, string> = {
    'CL and TE together': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    'duplicate Content-Length': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 37\r\n\r\n${smuggled}`,
    'bare LF line endings': `LIST /a HTTP/1.1\nHost: x\nContent-Length: 0\n\n${smuggled}`,
    'TE chunked, identity': `LIST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${smuggled}`,
    'space before colon': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length : 37\r\n\r\n${smuggled}`,
  };
  for (const [name, req] of Object.entries(cases)) {
    test(`${name} gets 400 and nothing else`, T, async () => {
      const r = parseResponses(await exchange(h, [b(req)]));
      assert.deepEqual(
        r.map((x) => x.status),
        ['HTTP/1.1 400 Bad Request'],
      );
    });
    // POST heads take the framer's fast path; a smuggled LIST must not get through either.
    test(`${name} (POST, smuggling a LIST) gets 400 and nothing else`, T, async () => {
      const post = req.replace('LIST /a', 'POST /a').replace('GET /smuggled', 'LIST /smuggled');
      const r = parseResponses(await exchange(h, [b(post)]));
      assert.deepEqual(
        r.map((x) => x.status),
        ['HTTP/1.1 400 Bad Request'],
      );
    });
  }
});

describe('edge cases of the framer', () => {
  test('Upgrade without an upgrade listener is served as a normal request; LIST still works after it', T, async () => {
    const h = await start(createHttpServer({}, echo) as http.Server, false);
    try {
      const s = await connect(h);
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      const closed = new Promise((r) => s.on('close', r));
      s.write('POST /a HTTP/1.1\r\nHost: x\r\nUpgrade: foo\r\nConnection: upgrade\r\nContent-Length: 5\r\n\r\nLIST ');
      await waitFor(() => got.includes('}'));
      s.write('LIST /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await closed;
      assert.deepEqual(echoes(Buffer.from(got, 'latin1')), [
        { method: 'POST', url: '/a', body: 'LIST ' },
        { method: 'LIST', url: '/b', body: '' },
      ]);
    } finally {
      await close(h);
    }
  });

  test('after such an Upgrade llhttp drops the rest of the chunk, and so does the framer', T, async () => {
    const h = await start(createHttpServer({}, echo) as http.Server, false);
    try {
      const s = await connect(h);
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      const closed = new Promise((r) => s.on('close', r));
      // The tail of the first write is discarded by node:http; a framer still following it
      // would take the next request line for a header line.
      s.write('GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: foo\r\nConnection: upgrade\r\n\r\nLIST /dropped HTTP/1.1\r\nHost: x\r\n');
      await waitFor(() => got.includes('}'));
      s.write('LIST /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await closed;
      assert.deepEqual(echoes(Buffer.from(got, 'latin1')), [
        { method: 'GET', url: '/a', body: '' },
        { method: 'LIST', url: '/b', body: '' },
      ]);
    } finally {
      await close(h);
    }
  });

  test('ListIncomingMessage without the framer leaves a genuine LINK as LINK', T, async () => {
    const h = await start(http.createServer({ IncomingMessage: ListIncomingMessage }, echo), false);
    try {
      const got = echoes(await exchange(h, [b('LINK /l HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
      assert.deepEqual(got, [{ method: 'LINK', url: '/l', body: '' }]);
    } finally {
      await close(h);
    }
  });
});

describe('LIST over HTTPS', () => {
  let h: Harness;
  before(async () => {
    const { key, cert } = selfSignedCert();
    const server = createHttpServer({ tls: { key, cert } }, echo);
    h = await start(server, true);
  });
  after(async () => {
    await close(h);
  });

  test('raw LIST over TLS is seen as LIST, LINK gets 400', T, async () => {
    const got = echoes(await exchange(h, [b('LIST /tls/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
    assert.deepEqual(got, [{ method: 'LIST', url: '/tls/', body: '' }]);
    const link = parseResponses(await exchange(h, [b('LINK /x HTTP/1.1\r\nHost: x\r\n\r\n')]));
    assert.deepEqual(
      link.map((r) => r.status),
      ['HTTP/1.1 400 Bad Request'],
    );
  });

  test('8 pipelined requests over TLS, whole and in 10 random splits', T, async () => {
    assert.deepEqual(echoes(await exchange(h, [pipeline])), expected);
    const rnd = prng(7);
    for (let k = 0; k < 10; k++) assert.deepEqual(echoes(await exchange(h, randomSplit(pipeline, rnd))), expected);
  });

  test('curl -k -X LIST over HTTPS', { ...T, skip: !hasCurl && 'curl not installed' }, async () => {
    const r = await curl(['-k', '-X', 'LIST', `https://127.0.0.1:${h.port}/v1/x/`]);
    assert.equal(r.code, '200');
    assert.equal(JSON.parse(r.body).method, 'LIST');
  });
});

/** Whether node:http still reads `socket` itself (native path: no framer, no `'data'` events). */
const readsNatively = (s: net.Socket | undefined): boolean => (s as unknown as { parser?: { _consumed?: boolean } } | undefined)?.parser?._consumed === true;

/** The number of complete responses at the start of `text` (bodies by Content-Length). */
function complete(text: string): number {
  let i = 0;
  let n = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', i);
    if (end < 0) return n;
    const len = /\r\ncontent-length: *(\d+)/i.exec(text.slice(i, end));
    const next = end + 4 + Number(len?.[1] ?? 0);
    if (next > text.length) return n;
    n++;
    i = next;
  }
}

/** One client connection sending raw bytes and waiting for its replies. */
async function session(h: Harness): Promise<{
  send(text: string): void;
  /** Ends the client's side of the connection. */
  end(): void;
  replies(n: number): Promise<void>;
  closed: Promise<unknown>;
  server(): net.Socket | undefined;
  text(): string;
}> {
  const s = await connect(h);
  let got = '';
  s.on('data', (d: Buffer) => (got += d.toString('latin1')));
  const closed = new Promise((r) => s.on('close', r));
  setTimeout(() => s.destroy(), 8000).unref();
  return {
    send: (text) => s.write(text),
    end: () => s.end(),
    replies: (n) => waitFor(() => complete(got) >= n),
    closed,
    server: () => h.sockets.get(s.localPort ?? 0),
    text: () => got,
  };
}

const statuses = (data: Buffer): string[] => parseResponses(data).map((r) => r.status);

describe('LIST handed off from the native read path (issue 15)', () => {
  let h: Harness;
  let hs: Harness;
  before(async () => {
    h = await start(createHttpServer({}, echo) as http.Server, false, 'bytesRead');
    const { key, cert } = selfSignedCert();
    hs = await start(createHttpServer({ tls: { key, cert } }, echo) as http.Server, true, 'bytesRead');
  });
  after(async () => {
    await close(h);
    await close(hs);
  });

  test('GETs stay on the native path; a LIST after them on the keep-alive connection hands it to the framer', T, async () => {
    const c = await session(h);
    c.send('GET /1 HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.replies(1);
    c.send('POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nLIST');
    await c.replies(2);
    assert.equal(readsNatively(c.server()), true, 'still read natively before any LIST');
    c.send('LIST /3 HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.replies(3);
    assert.equal(readsNatively(c.server()), false, 'framed after the LIST');
    c.send('GET /4 HTTP/1.1\r\nHost: x\r\n\r\nLIST /5 HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.replies(5);
    c.send('LINK /6 HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.closed;
    const all = parseResponses(Buffer.from(c.text(), 'latin1'));
    assert.deepEqual(
      all.map((r) => r.status),
      [...Array(5).fill('HTTP/1.1 200 OK'), 'HTTP/1.1 400 Bad Request'],
    );
    assert.deepEqual(
      all.slice(0, 5).map((r) => JSON.parse(r.body) as Echo),
      [
        { method: 'GET', url: '/1', body: '' },
        { method: 'POST', url: '/2', body: 'LIST' },
        { method: 'LIST', url: '/3', body: '' },
        { method: 'GET', url: '/4', body: '' },
        { method: 'LIST', url: '/5', body: '' },
      ],
    );
  });

  test('LIST as the first request, whole and one byte at a time', T, async () => {
    const req = b('LIST /first HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const want = [
      { method: 'LIST', url: '/first', body: '' },
      { method: 'GET', url: '/after', body: '' },
    ];
    assert.deepEqual(echoes(await exchange(h, [req])), want);
    assert.deepEqual(
      echoes(
        await exchange(
          h,
          [...req].map((_, k) => req.subarray(k, k + 1)),
        ),
      ),
      want,
    );
  });

  test('8 pipelined requests (a GET, then the switch at LIST /2): whole, one byte at a time, 50 random splits', T, async () => {
    assert.deepEqual(echoes(await exchange(h, [pipeline])), expected);
    assert.deepEqual(
      echoes(
        await exchange(
          h,
          [...pipeline].map((_, k) => pipeline.subarray(k, k + 1)),
        ),
      ),
      expected,
    );
    const rnd = prng(15);
    for (let k = 0; k < 50; k++) {
      const pieces = randomSplit(pipeline, rnd);
      assert.deepEqual(echoes(await exchange(h, pieces)), expected, `split ${pieces.map((p) => p.length).join(',')}`);
    }
  });

  // A GET with a body whose bytes look like requests, then the LIST mid-chunk, a chunked
  // POST (chunk data, extension and trailer holding LIST), and a LIST after it.
  const getBody = 'LIST /in-body HTTP/1.1\r\n\r\n';
  const chunkData = 'LIST /in-chunk HTTP/1.1\r\n\r\n';
  const mixed = b(
    `GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: ${getBody.length}\r\n\r\n${getBody}` +
      'LIST /b HTTP/1.1\r\nHost: x\r\n\r\n' +
      'POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `${chunkData.length.toString(16)};x="LIST /e"\r\n${chunkData}\r\n0\r\nX-T: LIST /t\r\n\r\n` +
      'LIST /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  const mixedWant: Echo[] = [
    { method: 'GET', url: '/a', body: getBody },
    { method: 'LIST', url: '/b', body: '' },
    { method: 'POST', url: '/c', body: chunkData, trailers: { 'x-t': 'LIST /t' } },
    { method: 'LIST', url: '/d', body: '' },
  ];

  test('a LIST in the middle of a pipelined chunk after a GET with a body: whole, byte by byte, 50 random splits', T, async () => {
    assert.deepEqual(echoes(await exchange(h, [mixed])), mixedWant);
    assert.deepEqual(
      echoes(
        await exchange(
          h,
          [...mixed].map((_, k) => mixed.subarray(k, k + 1)),
        ),
      ),
      mixedWant,
    );
    const rnd = prng(1515);
    for (let k = 0; k < 50; k++) {
      const pieces = randomSplit(mixed, rnd);
      assert.deepEqual(echoes(await exchange(h, pieces)), mixedWant, `split ${pieces.map((p) => p.length).join(',')}`);
    }
  });

  test('a LIST after a chunked POST, the POST read natively', T, async () => {
    const post = `POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunkData.length.toString(16)}\r\n${chunkData}\r\n0\r\n\r\n`;
    const c = await session(h);
    c.send(post);
    await c.replies(1);
    assert.equal(readsNatively(c.server()), true);
    c.send('LIST /after-chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await c.closed;
    assert.deepEqual(echoes(Buffer.from(c.text(), 'latin1')), [
      { method: 'POST', url: '/c', body: chunkData },
      { method: 'LIST', url: '/after-chunked', body: '' },
    ]);
  });

  // Smuggling shapes on the LIST that makes the switch, after a GET read natively, in one
  // write and in two: the replies are byte for byte those of a connection framed from its
  // first byte (as before issue 15; node:http may drop the GET's reply when the 400
  // overtakes it), the last is a 400, and nothing after it is served.
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
  const first = 'GET /first HTTP/1.1\r\nHost: x\r\n\r\n';
  const bad: Record<string, string> = {
    'CL and TE together': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    'duplicate Content-Length': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 37\r\n\r\n${smuggled}`,
    'bare LF line endings': `LIST /a HTTP/1.1\nHost: x\nContent-Length: 0\n\n${smuggled}`,
    'TE chunked, identity': `LIST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${smuggled}`,
    'folded header': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n 37\r\n\r\n${smuggled}`,
    'space before colon': `LIST /a HTTP/1.1\r\nHost: x\r\nContent-Length : 37\r\n\r\n${smuggled}`,
    // Not LIST: llhttp's own 400 stands.
    UNLIST: `UNLIST /a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`,
    LINK: `LINK /a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`,
    LISK: `LISK /a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`,
    LISTEN: `LISTEN /a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`,
    'LIST and a tab': `LIST\t/a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`,
  };
  let framed: Harness;
  before(async () => {
    framed = await start(createHttpServer({}, echo) as http.Server, false, 'data');
  });
  after(() => close(framed));
  for (const [name, req] of Object.entries(bad)) {
    test(`after a native GET: ${name} answers as on a framed connection, ending in 400`, T, async () => {
      for (const pieces of [[first + req], [first, req], [first + req.slice(0, 2), req.slice(2)]]) {
        const label = `pieces ${pieces.map((p) => p.length).join(',')}`;
        // The Date headers of the two exchanges may fall in different seconds.
        const undated = (s: string) => s.replace(/^Date: .*\r\n/gm, '');
        const got = (await exchange(h, pieces.map(b))).toString('latin1');
        const before = (await exchange(framed, pieces.map(b))).toString('latin1');
        assert.equal(undated(got), undated(before), label);
        const r = parseResponses(Buffer.from(got, 'latin1'));
        assert.equal(r.at(-1)?.status, 'HTTP/1.1 400 Bad Request', label);
        assert.ok(!got.includes('/smuggled') && !got.includes('"/a"'), label);
      }
    });
  }

  test('a body ending in "UN" right before a LIST is refused (it reads as UNLIST to llhttp)', T, async () => {
    const req = `POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nUNLIST /a HTTP/1.1\r\nHost: x\r\n\r\n${smuggled}`;
    const r = parseResponses(await exchange(h, [b(req)]));
    assert.equal(r.at(-1)?.status, 'HTTP/1.1 400 Bad Request');
    assert.ok(!r.some((x) => x.body.includes('/a') || x.body.includes('/smuggled')));
  });

  test('Expect: 100-continue with LIST after a native GET', T, async () => {
    const c = await session(h);
    c.send(first);
    await c.replies(1);
    c.send('LIST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    await c.replies(2);
    c.send('hello');
    await c.closed;
    const [get, cont, final] = parseResponses(Buffer.from(c.text(), 'latin1'));
    assert.equal(get.status, 'HTTP/1.1 200 OK');
    assert.equal(cont.status, 'HTTP/1.1 100 Continue');
    assert.deepEqual(JSON.parse(final.body), { method: 'LIST', url: '/c', body: 'hello' });
  });

  test('a data listener added after the first bytes: LIST cannot be framed there and gets 400, LINK too', T, async () => {
    const server = createHttpServer({}, (req, res) => {
      req.socket.on('data', () => undefined); // moves node:http to 'data' events mid-connection
      echo(req, res);
    }) as http.Server;
    const late = await start(server, false, 'bytesRead');
    try {
      for (const m of ['LIST', 'LINK']) {
        const got = statuses(await exchange(late, [b(first), b(`${m} /x HTTP/1.1\r\nHost: x\r\n\r\n`)]));
        assert.equal(got.at(-1), 'HTTP/1.1 400 Bad Request', m);
      }
    } finally {
      await close(late);
    }
  });

  test('an Upgrade served as a normal request, read natively: the dropped rest of its chunk is no LIST; the next LIST is', T, async () => {
    const late = await start(createHttpServer({}, echo) as http.Server, false, 'bytesRead');
    try {
      const c = await session(late);
      // node:http drops "LI" after the Upgrade request; "ST /x" alone must not become a LIST.
      c.send('GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: foo\r\nConnection: upgrade\r\n\r\nLI');
      await c.replies(1);
      c.send('LIST /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await c.closed;
      assert.deepEqual(echoes(Buffer.from(c.text(), 'latin1')), [
        { method: 'GET', url: '/a', body: '' },
        { method: 'LIST', url: '/b', body: '' },
      ]);
    } finally {
      await close(late);
    }
  });

  test('a LIST Upgrade read natively after a GET: 101, then the bytes after it pass through untouched', T, async () => {
    const server = createHttpServer({}, echo) as http.Server;
    server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Method: ${req.method}\r\n\r\n`);
      socket.write(head);
      socket.on('data', (d: Buffer) => socket.write(d));
      socket.on('end', () => socket.end());
      socket.on('error', () => socket.destroy());
    });
    const up = await start(server, false, 'bytesRead');
    try {
      const c = await session(up);
      c.send(first);
      await c.replies(1);
      const raw = 'LIST /raw HTTP/1.1\r\nLINK /raw2 HTTP/1.1\r\n\r\n';
      c.send(`LIST /up HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n${raw}`);
      await waitFor(() => c.text().endsWith(raw));
      const text = c.text();
      const head = text.indexOf('HTTP/1.1 101 Switching Protocols\r\n');
      assert.ok(head > 0, text);
      assert.match(text.slice(head), /\r\nX-Method: LIST\r\n/);
      assert.equal(text.slice(text.indexOf('\r\n\r\n', head) + 4), raw);
      c.end();
    } finally {
      await close(up);
    }
  });

  test('HTTPS: the 8 pipelined requests, whole and in 10 random splits', T, async () => {
    assert.deepEqual(echoes(await exchange(hs, [pipeline])), expected);
    const rnd = prng(443);
    for (let k = 0; k < 10; k++) assert.deepEqual(echoes(await exchange(hs, randomSplit(pipeline, rnd))), expected);
  });
});
