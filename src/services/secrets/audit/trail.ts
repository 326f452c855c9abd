/**
 * One request's audit trail: the request entry, written before the handler runs (the
 * request is refused when no device can write it), then the response entry, written
 * before the client gets anything (a 500 instead when no device can write it). A request
 * that fails before its handler runs (403, 404, 400) gets a request entry with `error`;
 * one whose handler fails gets a response entry with `error`.
 *
 * The response entry is made from the reply's JSON body, whatever produced it, so every
 * envelope field (`data`, `auth`, `wrap_info`, …) is covered with no change here.
 *
 * @module
 */
import { CairnError, type HttpRequest, type HttpResponse } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import { ReadOnlyStorageError } from '../ha/storage-guard.js';
import { entryHead, requestLine, responseLine, type EntryStyle, type RequestFacts, type ResponseFacts } from './entry.js';

/** What the pipeline tells the trail (handler.ts `serve`). */
export interface Trail {
  /** Adds what the pipeline learnt (token, namespace, path, mount type) before anything can fail. */
  note(facts: Partial<RequestFacts>): void;
  /** Writes the request entry; the handler runs after it. @throws CairnError 500 when no device could write it. */
  request(operation: string, data: Readonly<Record<string, unknown>>): void | Promise<void>;
}

/** The trail of a server without devices: nothing to do. */
export const NO_TRAIL: Trail = { note: () => {}, request: () => {} };

/** `X-Secrets-Wrap-TTL` in seconds, when asked for and readable (the request entry's `wrap_ttl`). */
function wrapTtl(req: HttpRequest): number | undefined {
  const v = req.headers['x-secrets-wrap-ttl'];
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    return parseDuration(v, 'wrap_ttl');
  } catch {
    return undefined;
  }
}

/** The response entry's parts from a reply: its JSON envelope, or a bare JSON body as `data`. */
function replyFacts(res: HttpResponse): { facts?: ResponseFacts; error?: string } {
  const body = res.body;
  if (body === undefined || !String(res.headers?.['Content-Type'] ?? '').startsWith('application/json')) return {};
  let v: unknown;
  try {
    v = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    return {};
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { facts: { data: v } };
  const o = v as Record<string, unknown>;
  // A 404 with `{"errors":[]}` (nothing at the path) is a response without data, as the reference logs it.
  if (res.status >= 400 && Array.isArray(o.errors)) return { error: o.errors.length ? o.errors.join(', ') : undefined };
  if (!('request_id' in o)) return { facts: { data: o } };
  return {
    facts: {
      mountType: o.mount_type as string | undefined,
      data: o.data,
      auth: o.auth as Record<string, unknown> | null,
      leaseId: o.lease_id as string | undefined,
      wrapInfo: o.wrap_info as Record<string, unknown> | null,
      warnings: o.warnings as string[] | null,
    },
  };
}

/**
 * Where a trail writes its entries (broker.ts `AuditBroker.write`: every device, each in its
 * own style). Named here: the broker makes the trails.
 */
export interface AuditWriter {
  write(format: (style: EntryStyle) => string): void | Promise<void>;
}

/** The trail of one request on a server with devices. */
export class AuditTrail implements Trail {
  private readonly facts: RequestFacts;
  private requested = false;
  /** Each device's {@link entryHead}, made at the request entry (nothing changes it after). */
  private heads: [EntryStyle, string][] = [];

  constructor(
    private readonly broker: AuditWriter,
    req: HttpRequest,
    clientToken: string,
  ) {
    const method =
      req.method === 'GET' ? 'read' : req.method === 'LIST' ? 'list' : req.method === 'DELETE' ? 'delete' : req.method === 'PATCH' ? 'patch' : 'update';
    this.facts = { id: req.id, operation: method, clientToken, path: req.path.replace(/^\/v1\//, ''), remoteAddress: req.remoteAddress, wrapTtl: wrapTtl(req) };
  }

  note(facts: Partial<RequestFacts>): void {
    Object.assign(this.facts, facts);
  }

  request(operation: string, data: Readonly<Record<string, unknown>>): void | Promise<void> {
    this.facts.operation = operation;
    this.facts.data = data;
    this.requested = true;
    const time = new Date().toISOString();
    return this.broker.write((s) => requestLine(s, time, this.head(s)));
  }

  /** Writes the response entry, then hands the reply on. @throws CairnError 500 (and the reply is dropped) when no device could write. */
  async respond(res: HttpResponse): Promise<HttpResponse> {
    // A reply made without the handler (help): its request entry first.
    if (!this.requested) await this.request(this.facts.operation, this.facts.data ?? {});
    const { facts, error } = replyFacts(res);
    const time = new Date().toISOString();
    await this.broker.write((s) => responseLine(s, time, this.head(s), { response: facts, error }));
    return res;
  }

  /** The device's shared entry part, made once. */
  private head(s: EntryStyle): string {
    for (const [style, head] of this.heads) if (style === s) return head;
    const head = entryHead(s, this.facts);
    this.heads.push([s, head]);
    return head;
  }

  /**
   * Writes the failure (a request entry with `error` when the handler did not run, else a
   * response entry with it), then rethrows `err`. A read a performance standby forwards
   * (its storage refused a write) is audited by the active server instead.
   * @throws `err`, or CairnError 500 when no device could write.
   */
  async fail(err: unknown): Promise<never> {
    if (err instanceof ReadOnlyStorageError) throw err;
    const error = err instanceof CairnError ? err.messages.join(', ') || err.code : 'internal error';
    const time = new Date().toISOString();
    if (!this.requested) await this.broker.write((s) => requestLine(s, time, entryHead(s, this.facts), error));
    else await this.broker.write((s) => responseLine(s, time, this.head(s), { error }));
    throw err;
  }
}
