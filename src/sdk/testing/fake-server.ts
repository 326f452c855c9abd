/**
 * A tiny recording HTTP(S) server for client tests: every request is stored, and the answer
 * comes from a function of the request. Not a secrets service; it only says what it is told.
 *
 * @module
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request as the fake server saw it. */
interface RecordedRequest {
  method: string;
  /** Path without query, e.g. `/v1/secret/data/foo`. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, `undefined` when empty. */
  body: unknown;
}

/** What the fake answers: a status, reply headers, and a JSON body unless `undefined`. */
interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Chooses the answer to a request. */
export type FakeHandler = (req: RecordedRequest) => FakeAnswer;

/** A running fake server. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` or `https://…`. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the answering function. */
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

/**
 * Starts on 127.0.0.1, port 0. With `tls` it serves HTTPS with that key and certificate (PEM).
 * The default handler answers 204.
 */
export async function startFakeServer(options: { tls?: { key: string; cert: string }; handler?: FakeHandler } = {}): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let handler: FakeHandler = options.handler ?? (() => ({ status: 204 }));
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(recorded);
      const answer = handler(recorded);
      if (answer.body === undefined) {
        res.writeHead(answer.status, answer.headers).end();
      } else {
        res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      }
    });
  };
  const server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    handle(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A success envelope around `data` (plus optional `auth`/`warnings`), as the service sends it. */
export function envelope(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request_id: '00000000-0000-0000-0000-000000000000',
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data,
    wrap_info: null,
    warnings: null,
    auth: null,
    mount_type: 'kv',
    ...extra,
  };
}
