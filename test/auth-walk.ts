/**
 * An authorization walk (issue 25 scope 2): it reads a service's OWN OpenAPI document and
 * calls every documented path and method as each of several callers that should be refused
 * — no token, a made-up token, a valid token with no rights — with placeholder path values
 * and an empty JSON object as the body. It records every 2xx an operation answers that the
 * service does not declare open to that caller, and every change of the stored state
 * (`fingerprint`) that a refused request left behind. A route whose access rule were
 * dropped (or made public by mistake) shows up as a finding.
 */
import { Agent, request } from 'node:http';

/** One caller of the walk: a name for the findings and the headers it sends. */
interface WalkCaller {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the walk needs from one service under test. */
export interface AuthWalkTarget {
  /** `http://host:port` of the API. */
  readonly base: string;
  /** The prefix every documented path is under (`/v1`). */
  readonly prefix: string;
  /** The OpenAPI document, as read from the service. */
  readonly doc: { paths: Record<string, Record<string, unknown>> };
  readonly callers: readonly WalkCaller[];
  /**
   * Whether `caller` may get a 2xx from `method path` (an upper-case method, the documented
   * path): the operations the service declares open (PUBLIC, or open to any valid token).
   */
  readonly open: (method: string, path: string, caller: string) => boolean;
  /** A plausible value of a path parameter (default `walk1`). */
  readonly plausible?: (path: string, param: string) => string;
  /** Documented `METHOD path`s left out, each for a reason stated by the caller. */
  readonly skip?: ReadonlySet<string>;
  /** Paths whose GET streams: the walk reads the status, then hangs up. */
  readonly streaming?: ReadonlySet<string>;
  /** A digest of the service's stored state; compared before and after every refused request. */
  readonly fingerprint: () => Promise<string>;
}

/** A reply the declaration forbids, or a state change a refused request made. */
export interface AuthFinding {
  readonly method: string;
  readonly path: string;
  readonly caller: string;
  readonly status: number;
  readonly what: 'answered 2xx' | 'changed the state';
}

/** Totals of one walk. */
export interface AuthWalkResult {
  /** Operations walked (documented path × method). */
  readonly operations: number;
  readonly requests: number;
  readonly findings: readonly AuthFinding[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** Walks every documented operation as every caller (module doc). Requests run one at a time. */
export async function walkAuthorization(t: AuthWalkTarget): Promise<AuthWalkResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const findings: AuthFinding[] = [];
  let operations = 0;
  let requests = 0;
  try {
    for (const [path, item] of Object.entries(t.doc.paths)) {
      for (const m of METHODS) {
        if (!(m in item)) continue;
        const method = m.toUpperCase();
        if (t.skip?.has(`${method} ${path}`)) continue;
        operations++;
        const url = t.prefix + path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(t.plausible?.(path, name) ?? 'walk1'));
        for (const caller of t.callers) {
          const open = t.open(method, path, caller.name);
          const before = open ? '' : await t.fingerprint();
          const status = await send(agent, t.base + url, { method, headers: caller.headers, streaming: t.streaming?.has(path) === true });
          requests++;
          if (open) continue;
          if (status >= 200 && status < 300) findings.push({ method, path, caller: caller.name, status, what: 'answered 2xx' });
          if ((await t.fingerprint()) !== before) findings.push({ method, path, caller: caller.name, status, what: 'changed the state' });
        }
      }
    }
  } finally {
    agent.destroy();
  }
  return { operations, requests, findings };
}

/** The findings as lines for an assertion message. */
export function describeAuthFindings(findings: readonly AuthFinding[]): string {
  return findings.map((f) => `${f.method} ${f.path} as ${f.caller}: ${f.what} (${f.status})`).join('\n');
}

/** Sends one request and resolves with its status; a streaming reply is cut after its head. */
function send(
  agent: Agent,
  url: string,
  { method, headers, streaming }: { method: string; headers: Readonly<Record<string, string>>; streaming: boolean },
): Promise<number> {
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { ...headers, ...(body && { 'Content-Type': 'application/json' }) }, timeout: 10_000 }, (res) => {
      if (streaming) {
        resolve(res.statusCode ?? 0);
        req.destroy();
        return;
      }
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no reply within 10 s`)));
    req.on('error', (err) => (streaming ? resolve(0) : reject(err)));
    req.end(body);
  });
}
