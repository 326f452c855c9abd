/**
 * How an HA standby hands a client request to the active server (issue 8 scope 2;
 * reference: request forwarding, or a 307 when it is off): {@link ActiveForwarder}.
 *
 * @module
 */
import { CairnError, sendToLeader, type HttpRequest, type HttpResponse } from '../../../kernel/http/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import { FORWARDED_FOR_HEADER } from './forwarded-for.js';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1), plus the ones the forwarding client sets itself;
 * never copied between the client and the active server.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** Marks a request a standby forwarded, so a server that is itself a standby by then answers 503 instead of forwarding again. */
export const FORWARDED_HEADER = 'x-cairn-forwarded';

/** The reference's error when a standby cannot reach the active node (`vault.ErrCannotForward`). */
export const CANNOT_FORWARD = 'cannot forward request; no connection or address not known';

/** How long a forwarded request may take before the standby answers 503. */
const FORWARD_TIMEOUT_MS = 60_000;

/** Header names of a `Connection` header value (also hop-by-hop). */
function connectionTokens(v: string | string[] | null | undefined): Set<string> {
  const all = Array.isArray(v) ? v.join(',') : (v ?? '');
  return new Set(
    all
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ''),
  );
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** What the forwarder needs to know about its server. */
export interface ActiveForwarderOptions {
  /** The active server's address as the leader row says (`''` when unknown). */
  readonly leaderAddress: () => string;
  /** Holds the lock but its core is still opening (a few milliseconds). */
  readonly activating: () => boolean;
  /** Forward (the default, as the reference), or answer 307 when `false` (`disable_clustering = true`). */
  readonly requestForwarding?: boolean;
  /** Reads who is active from the database now; called when the known active server refused the connection (it may have died and been replaced). */
  readonly refreshLeader?: () => Promise<void>;
  /** The `X-Cairn-Forwarded-For` value for a request (ha/forwarded-for.ts); undefined: none is sent. */
  readonly forwardedFor?: (req: HttpRequest) => string | undefined;
  /** This server's own addresses (`api_addr`, listener URLs): a leader address among them is never forwarded to. */
  readonly selfAddresses?: () => readonly string[];
  readonly log?: Logger;
}

/** Sends a standby's client requests to the active server, or redirects them there. */
export class ActiveForwarder {
  constructor(private readonly o: ActiveForwarderOptions) {}

  /**
   * The active server's answer to `req` (forwarded), or a 307 to it with
   * `disable_clustering`. 503 while this server is becoming active, while no other active
   * server is known or reachable ({@link CANNOT_FORWARD}), and for a request another
   * standby already forwarded (no loops).
   */
  send(req: HttpRequest): Promise<HttpResponse> {
    if (this.o.activating()) throw new CairnError('unavailable', 'this server is becoming the active one; retry');
    return this.o.requestForwarding === false ? Promise.resolve(this.redirect(req)) : this.forward(req);
  }

  /** 307 to the same path and query on the active server; 503 while no active server is known. */
  private redirect(req: HttpRequest): HttpResponse {
    const leader = this.o.leaderAddress();
    if (leader === '') throw new CairnError('unavailable', 'this server is a standby and no active server is known yet');
    const query = req.query.toString();
    return { status: 307, headers: { location: `${trimSlash(leader)}${req.path}${query ? `?${query}` : ''}` } };
  }

  /**
   * Sends the request to the active server (method, path, query, body, every header but
   * the hop-by-hop ones, plus the signed client address) and passes its reply back (status, headers, body). A refused
   * connection is retried at the active server read now (kernel `sendToLeader`): right
   * after a failover the leader row this standby last read may name the dead server.
   */
  private async forward(req: HttpRequest): Promise<HttpResponse> {
    // A request another standby already forwarded: never forward (no loops).
    if (req.headers[FORWARDED_HEADER] !== undefined) throw new CairnError('unavailable', CANNOT_FORWARD);
    try {
      return await sendToLeader({
        leader: () => this.target(),
        refreshLeader: () => this.o.refreshLeader?.() ?? Promise.resolve(),
        send: (leader) => this.sendTo(leader, req),
      });
    } catch {
      throw new CairnError('unavailable', CANNOT_FORWARD);
    }
  }

  /** The active server's address, unless none is known or the leader row names this server (a stale row). */
  private target(): string | undefined {
    const leader = trimSlash(this.o.leaderAddress());
    const self = this.o.selfAddresses?.().map(trimSlash) ?? [];
    return leader === '' || self.includes(leader) ? undefined : leader;
  }

  /** One forward to `leader`. @throws the fetch error (its cause says whether the connection was refused). */
  private async sendTo(leader: string, req: HttpRequest): Promise<HttpResponse> {
    const drop = connectionTokens(req.headers.connection);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || drop.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    headers.set(FORWARDED_HEADER, '1');
    // Never the client's own: the active server must not trust an address the client chose.
    headers.delete(FORWARDED_FOR_HEADER);
    const forwardedFor = this.o.forwardedFor?.(req);
    if (forwardedFor !== undefined) headers.set(FORWARDED_FOR_HEADER, forwardedFor);
    const query = req.query.toString();
    const path = req.path.split('/').map(encodeURIComponent).join('/');
    const withBody = req.body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD';
    let res: Response;
    let body: Buffer;
    try {
      res = await fetch(`${leader}${path}${query ? `?${query}` : ''}`, {
        method: req.method,
        headers,
        body: withBody ? new Uint8Array(req.body) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause;
      this.o.log?.warn({ leader, err: cause?.message ?? (err as Error).message }, 'HA: cannot forward the request to the active server');
      throw err;
    }
    const dropBack = connectionTokens(res.headers.get('connection'));
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      // fetch has already decoded the body: its encoding and length no longer apply.
      if (HOP_BY_HOP.has(name) || dropBack.has(name) || name === 'content-encoding') return;
      out[name] = value;
    });
    return { status: res.status, headers: out, body: req.method === 'HEAD' || body.length === 0 ? undefined : body };
  }
}
