/**
 * Test resources: a real secrets service on port 0 over a real SQLite file in a temp
 * directory (STYLE.md §4 "test resources start real servers on port 0"), and the HTTP
 * caller that the secrets, discovery and scheduler tests share ({@link apiCaller}).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListenerOptions } from '../src/kernel/http/index.js';
import { silentLogger } from '../src/kernel/log/logger.js';
import { SqliteBackend } from '../src/kernel/store/index.js';
import { startSecretsService, type SecretsService } from '../src/services/secrets/service.js';

export interface TestServer {
  readonly url: string;
  readonly rootToken: string;
  readonly service: SecretsService;
  readonly dataDir: string;
  readonly dbPath: string;
  /** Calls the API; `token` defaults to the root token (`null`: send none). */
  call(method: string, path: string, o?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
}

/**
 * A parsed JSON reply body as the tests read it: any shape, read field by field, with the
 * assertions as the check. Typing every reply of four services here would restate their
 * APIs a second time; this is the one place tests opt out of the type checker for them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see the docstring: a reply body of any shape
export type JsonReply = any;

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: JsonReply;
}

/** Starts a secrets service, initialised (1 share) and unsealed, with a KV v2 mount at `secret/` and a root token. */
export async function startTestServer(o: { listener?: Partial<ListenerOptions>; clock?: () => Date } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-test-'));
  const dbPath = join(dataDir, 'secrets.db');
  const service = await startSecretsService({
    backend: SqliteBackend.open({ path: dbPath }),
    listeners: [{ address: '127.0.0.1:0', ...o.listener }],
    log: silentLogger(),
    clock: o.clock,
  });
  const init = await service.node.initialize(1, 1);
  await service.node.unseal(init.keys[0]);
  const core = service.core;
  await core.root.mountEngine('secret', { type: 'kv', options: { version: '2' } });
  const root = { id: init.root_token };
  const url = service.listeners[0].url;
  return {
    url,
    rootToken: root.id,
    service,
    dataDir,
    dbPath,
    call: (method, path, c = {}) => call(url, method, path, { ...c, token: c.token === undefined ? root.id : c.token }),
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a secrets service on a new (or the given) SQLite file, sealed, as a real server starts. */
export async function startSealedServer(o: { dbPath?: string; managedNamespaces?: boolean } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-test-'));
  const dbPath = o.dbPath ?? join(dataDir, 'secrets.db');
  const service = await startSecretsService({
    backend: SqliteBackend.open({ path: dbPath }),
    listeners: [{ address: '127.0.0.1:0' }],
    log: silentLogger(),
    managedNamespaces: o.managedNamespaces,
  });
  const url = service.listeners[0].url;
  return {
    url,
    dbPath,
    service,
    call: (method: string, path: string, c: CallOptions = {}) => call(url, method, path, c),
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A test agent's data directory: the one a test gave (kept), or a new temp one (removed by `remove()`). */
export interface TestDataDir {
  readonly path: string;
  /** Removes the directory if it was made here; does nothing for a given one. */
  remove(): void;
}

/** `given` when a test names a data dir, else a new directory under the system's temp dir named `prefix…`. */
export function testDataDir(given: string | undefined, prefix: string): TestDataDir {
  if (given !== undefined) return { path: given, remove: () => {} };
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `agent` with its data dir and `stop()`, which closes the agent and then removes the dir (see {@link TestDataDir.remove}). */
export function stoppable<A extends { close(): Promise<void> }>(agent: A, dir: TestDataDir): A & { readonly dataDir: string; stop(): Promise<void> } {
  return {
    ...agent,
    dataDir: dir.path,
    stop: async () => {
      await agent.close();
      dir.remove();
    },
  };
}

/** Options of one {@link ApiCaller} call. */
interface ApiCallOptions {
  /** Sent in the caller's token header when non-empty. */
  token?: string;
  /** Sent as JSON when defined (unless `raw` is given). */
  body?: unknown;
  /** Sent as the body, as is. */
  raw?: string;
  headers?: Record<string, string>;
}

/** Calls `method path` on `base` (a service's `http://host:port`) and keeps the whole reply. */
export type ApiCaller = (base: string, method: string, path: string, o?: ApiCallOptions) => Promise<Reply>;

/**
 * An HTTP caller for one service: fetch (which sends any method, LIST included) with the
 * token in `tokenHeader` (`X-Mesh-Token`, …), `body` as JSON or `raw` as is, and any extra
 * `headers`; the reply keeps status, headers, raw text and JSON (undefined when not JSON).
 */
export function apiCaller(tokenHeader: string): ApiCaller {
  return async (base, method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers[tokenHeader] = o.token;
    const res = await fetch(base + path, { method, headers, body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

const secretsCall = apiCaller('X-Secrets-Token');

/** One call to the secrets service with `token` in `X-Secrets-Token`; a string `body` is sent as is, anything else as JSON. */
export function call(url: string, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const body = typeof o.body === 'string' ? { raw: o.body } : { body: o.body };
  return secretsCall(url, method, path, { token: o.token ?? undefined, headers: o.headers, ...body });
}
