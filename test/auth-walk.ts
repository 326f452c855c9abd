/**
 * An authorization walk (issue 25 scope 2), shared by the four services' `auth-walk` tests:
 * it reads a service's OWN OpenAPI document and calls every documented path and method (and
 * any undocumented operations the test adds) as each of several callers that should be
 * refused — no token, a made-up token, a valid token with no rights. Path values, bodies and
 * query strings come from the test where it knows ones that reach the access rule; by default
 * placeholder path values and an empty JSON object as the body. It records every reply to a
 * caller the service does not declare the operation open to that is not a refusal (by default:
 * a 2xx), every 5xx when asked, and every change of the stored state (`fingerprint`) a request
 * left behind. A route whose access rule were dropped (or made public by mistake) shows up as
 * a finding.
 */
import { Agent, request } from 'node:http';

/** One caller of the walk: a name for the findings and the headers it sends. */
interface WalkCaller {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** An operation the document leaves out that the walk calls too: an upper-case method, a path like the document's. */
interface ExtraOperation {
  readonly method: string;
  readonly path: string;
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
  /**
   * The body of `method path`, sent as JSON; `undefined` sends none. Without this function a
   * GET or DELETE has no body and any other method `{}`.
   */
  readonly body?: (method: string, path: string) => unknown;
  /** A query string (with its `?`) for `method path`, or `''`. */
  readonly query?: (method: string, path: string) => string;
  /** Undocumented operations walked after the documented ones (not counted in `operations`). */
  readonly extra?: readonly ExtraOperation[];
  /** Documented `METHOD path`s left out, each for a reason stated by the caller. */
  readonly skip?: ReadonlySet<string>;
  /** Paths whose GET streams: the walk reads the status, then hangs up. */
  readonly streaming?: ReadonlySet<string>;
  /** Whether a status refuses a caller the operation is not open to (default: anything but a 2xx). */
  readonly refuses?: (status: number) => boolean;
  /** True: a 5xx is a finding whoever called, open operations included. */
  readonly serverErrors?: boolean;
  /** True: the state is compared around open operations too (they may not write either). */
  readonly openWritesNothing?: boolean;
  /** A digest of the service's stored state; compared before and after every refused request. */
  readonly fingerprint: () => string | Promise<string>;
}

/** A reply the declaration forbids, a server error, or a state change a request made. */
export interface AuthFinding {
  readonly method: string;
  readonly path: string;
  readonly caller: string;
  readonly status: number;
  readonly what: 'not refused' | 'server error' | 'changed the state';
  /** The start of the reply's body (empty for a stream). */
  readonly reply: string;
}

/** Totals of one walk. */
export interface AuthWalkResult {
  /** Documented operations walked (path × method). */
  readonly operations: number;
  /** Requests sent, undocumented operations included. */
  readonly requests: number;
  readonly findings: readonly AuthFinding[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** How much of a reply's body a finding keeps. */
const REPLY_CHARS = 120;

/** Walks every documented operation, then the extra ones, as every caller (module doc). Requests run one at a time. */
export async function walkAuthorization(t: AuthWalkTarget): Promise<AuthWalkResult> {
  const documented: ExtraOperation[] = [];
  for (const [path, item] of Object.entries(t.doc.paths)) {
    for (const m of METHODS) if (m in item && !t.skip?.has(`${m.toUpperCase()} ${path}`)) documented.push({ method: m.toUpperCase(), path });
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const findings: AuthFinding[] = [];
  let requests = 0;
  const refuses = t.refuses ?? ((status: number) => status < 200 || status >= 300);
  try {
    for (const { method, path } of [...documented, ...(t.extra ?? [])]) {
      const url =
        t.prefix +
        path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(t.plausible?.(path, name) ?? 'walk1')) +
        (t.query?.(method, path) ?? '');
      const body = t.body ? t.body(method, path) : method === 'GET' || method === 'DELETE' ? undefined : {};
      for (const caller of t.callers) {
        const open = t.open(method, path, caller.name);
        const watch = !open || t.openWritesNothing === true;
        const before = watch ? await t.fingerprint() : '';
        const reply = await send(agent, t.base + url, { method, headers: caller.headers, body, streaming: t.streaming?.has(path) === true });
        requests++;
        const finding = (what: AuthFinding['what']) => findings.push({ method, path, caller: caller.name, status: reply.status, what, reply: reply.text });
        if (!open && !refuses(reply.status)) finding('not refused');
        if (t.serverErrors && reply.status >= 500) finding('server error');
        if (watch && (await t.fingerprint()) !== before) finding('changed the state');
      }
    }
  } finally {
    agent.destroy();
  }
  return { operations: documented.length, requests, findings };
}

/** The findings as lines for an assertion message. */
export function describeAuthFindings(findings: readonly AuthFinding[]): string {
  return findings.map((f) => `${f.method} ${f.path} as ${f.caller}: ${f.what} (${f.status} ${f.reply})`).join('\n');
}

/** Sends one request and resolves with its status and the start of its body; a streaming reply is cut after its head. */
function send(
  agent: Agent,
  url: string,
  { method, headers, body, streaming }: { method: string; headers: Readonly<Record<string, string>>; body: unknown; streaming: boolean },
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      url,
      { method, agent, headers: { ...headers, ...(payload !== undefined && { 'Content-Type': 'application/json' }) }, timeout: 10_000 },
      (res) => {
        const status = res.statusCode ?? 0;
        if (streaming) {
          answered = true;
          resolve({ status, text: '' });
          req.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < REPLY_CHARS) text += chunk.slice(0, REPLY_CHARS - text.length);
        });
        res.on('end', () => resolve({ status, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no reply within 10 s`)));
    // Hanging up on a stream ends in an error too: that one is not a failure.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    req.end(payload);
  });
}
