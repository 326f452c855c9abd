/**
 * One HTTP/1.1 GET on a socket of its own, read with as little client work as possible:
 * the bench's 1,000–5,000 blocking queries (mesh-blocking-wake) share the server's two cores,
 * and fetch's own cost per reply (~100 µs: undici's parser, streams, promises) was most of the
 * latency it measured. The reply is timed when its last byte arrives and parsed only after.
 */
import { connect } from 'node:net';

/** A reply: when it was complete (`performance.now()`, ms), its status, lower-case headers and body text. */
export interface RawReply {
  readonly at: number;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends `GET path` to `url` (http://host:port) with `headers` and resolves with the reply
 * (Content-Length bodies only: what Cairn's JSON replies carry); the socket is closed after.
 * @throws (rejects) on a socket error or a connection closed before the whole reply.
 */
export function rawGet(url: string, path: string, headers: Readonly<Record<string, string>>): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let received = 0;
    let need = Infinity;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (need === Infinity) {
        const head = Buffer.concat(chunks).indexOf('\r\n\r\n');
        if (head < 0) return;
        const length = /\r\ncontent-length: *(\d+)/i.exec(Buffer.concat(chunks).subarray(0, head).toString('latin1'));
        need = head + 4 + Number(length?.[1] ?? 0);
      }
      if (received < need) return;
      const at = performance.now();
      socket.destroy();
      const all = Buffer.concat(chunks).toString('utf8');
      const end = all.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = all.slice(0, end).split('\r\n');
      const out: Record<string, string> = {};
      for (const l of lines) out[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ at, status: Number(statusLine!.split(' ')[1]), headers: out, body: all.slice(end + 4) });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`rawGet ${path}: connection closed after ${received} bytes`)));
    const lines = Object.entries({ Host: `${hostname}:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  });
}
