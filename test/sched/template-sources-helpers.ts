/**
 * Helpers of the template source tests (test/sched/template-sources-*.test.ts): a listener
 * that records what a watch reports, and a counting HTTP proxy in front of a real service,
 * so a test can see each request a watch made and when it made the next one (a blocking
 * query's wake-up handled) without any timed wait.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DependencyListener } from '../../src/services/sched/client/templates/source.js';
import { until } from '../processes.js';

/** A listener that keeps every value and error with the time it arrived (ms since the epoch). */
export interface Recorder extends DependencyListener {
  readonly values: unknown[];
  readonly errors: { readonly err: Error; readonly at: number }[];
  /** Waits until a value satisfies `pred` (the last one by default) and returns it. */
  valueWhere(what: string, pred: (v: unknown) => boolean, ms?: number): Promise<unknown>;
}

/** A new {@link Recorder}. */
export function recorder(): Recorder {
  const values: unknown[] = [];
  const errors: { err: Error; at: number }[] = [];
  return {
    values,
    errors,
    value: (v) => values.push(v),
    error: (err) => errors.push({ err, at: Date.now() }),
    valueWhere: (what, pred, ms = 20_000) =>
      until(what, ms, () => {
        const last = values.at(-1);
        return values.length > 0 && pred(last) ? { last } : undefined;
      }).then((r) => r.last),
  };
}

/** One request seen by the proxy: `index` the service's `X-…-Index` of the reply, `done` once it was answered. */
interface ProxiedRequest {
  readonly method: string;
  readonly url: string;
  status?: number;
  index?: number;
  done: boolean;
}

/** A plain HTTP proxy to `target` (`http://host:port`) recording every request. */
export interface CountingProxy {
  readonly url: string;
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a {@link CountingProxy} on a free port; `rewriteIndex` replaces the `X-Mesh-Index`
 * of a reply (a service whose index goes backwards or reads 0, as the reference's docs warn).
 */
export async function startCountingProxy(
  target: string,
  o: { rewriteIndex?: (index: number, request: ProxiedRequest) => number } = {},
): Promise<CountingProxy> {
  const to = new URL(target);
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const seen: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', done: false };
    requests.push(seen);
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up: IncomingMessage) => {
      seen.status = up.statusCode;
      const headers = { ...up.headers };
      const index = headers['x-mesh-index'];
      if (typeof index === 'string') {
        seen.index = o.rewriteIndex ? o.rewriteIndex(Number(index), seen) : Number(index);
        headers['x-mesh-index'] = String(seen.index);
      }
      res.writeHead(up.statusCode ?? 502, headers);
      up.pipe(res);
      up.on('end', () => (seen.done = true));
    });
    upstream.on('error', () => {
      seen.done = true;
      res.destroy();
    });
    // The client gave the request up (an aborted blocking query): so does the proxy.
    res.on('close', () => {
      seen.done = true;
      if (!res.writableEnded) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
