/**
 * One run of an HTTP or TCP check (reference/mesh-catalog.md "Agent"; the reference's
 * `checks.CheckHTTP` and `CheckTCP`):
 *
 * - HTTP: 2xx → `passing`, 429 → `warning`, any other status, a timeout (of the whole
 *   exchange) or a refused connection → `critical`; output `HTTP GET <url>: 200 OK Output: <body>` where the body
 *   is cut to its last 4 KiB (the reference reads it through a 4 KiB circular buffer);
 * - TCP: a connection within the timeout → `passing` (`TCP connect <addr>: Success`),
 *   else `critical` with the error.
 *
 * @module
 */
import { request as httpRequest, STATUS_CODES } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { CheckStatus } from '../catalog/model.js';
import type { CheckRun } from './definition.js';

/** Bytes of a check's output kept (the reference's `BufSize`). */
export const OUTPUT_MAX_BYTES = 4 * 1024;

/** A check result. */
export interface ProbeResult {
  readonly status: CheckStatus;
  readonly output: string;
}

/** Runs an HTTP check once; never rejects. */
export function httpProbe(run: Extract<CheckRun, { kind: 'http' }>): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(run.url);
    } catch (err) {
      resolve({ status: 'critical', output: (err as Error).message });
      return;
    }
    const headers: Record<string, string | string[]> = { 'User-Agent': 'Cairn Health Check', Accept: 'text/plain, text/*, */*' };
    for (const [k, v] of Object.entries(run.header)) headers[k] = [...v];
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let timer: NodeJS.Timeout | undefined;
    const settle = (r: ProbeResult) => {
      clearTimeout(timer);
      resolve(r);
    };
    const fail = (err: Error) => settle({ status: 'critical', output: `${run.method} ${JSON.stringify(run.url)}: ${err.message}` });
    const req = send(url, { method: run.method, headers, rejectUnauthorized: !run.tlsSkipVerify }, (res) => {
      let tail = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        tail = Buffer.concat([tail, chunk]);
        if (tail.length > OUTPUT_MAX_BYTES) tail = tail.subarray(tail.length - OUTPUT_MAX_BYTES);
      });
      res.on('error', fail);
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        const line = `${code} ${res.statusMessage || STATUS_CODES[code] || ''}`.trim();
        const status: CheckStatus = code >= 200 && code <= 299 ? 'passing' : code === 429 ? 'warning' : 'critical';
        settle({ status, output: `HTTP ${run.method} ${run.url}: ${line} Output: ${tail.toString('utf8')}` });
      });
    });
    // The timeout bounds the whole exchange (connect, headers and body), as the reference's client timeout does.
    timer = setTimeout(() => req.destroy(new Error(`request timed out after ${run.timeoutMs}ms`)), run.timeoutMs);
    req.on('error', fail);
    req.end(run.body === '' ? undefined : run.body);
  });
}

/** Runs a TCP check once; never rejects. */
export function tcpProbe(run: Extract<CheckRun, { kind: 'tcp' }>): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const at = run.address.lastIndexOf(':');
    const host = run.address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    const port = Number(run.address.slice(at + 1));
    if (at < 0 || !Number.isInteger(port)) {
      resolve({ status: 'critical', output: `dial tcp ${run.address}: missing port in address` });
      return;
    }
    const socket = connect({ host, port });
    const done = (r: ProbeResult) => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(run.timeoutMs, () => done({ status: 'critical', output: `dial tcp ${run.address}: i/o timeout` }));
    socket.on('connect', () => done({ status: 'passing', output: `TCP connect ${run.address}: Success` }));
    socket.on('error', (err) => done({ status: 'critical', output: `dial tcp ${run.address}: ${err.message}` }));
  });
}
