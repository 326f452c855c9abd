/**
 * A route-walking hostile-input driver (issue 20 "every parser is bounded first"): it reads a
 * service's OWN OpenAPI document and, for every path and declared method, sends hostile
 * path values, malformed and deeply nested JSON, out-of-range numbers, wrong-typed and
 * NUL-bearing and 1 MiB field values, deeply nested HCL where a field takes HCL, and hostile
 * query parameters. It records every reply that breaks the house rule (a 2xx for malformed
 * input, a 5xx other than an allowed 503, a 4xx with an empty body, no reply within the
 * timeout) and, after each path's batch, runs the service's own `healthy` check (a list
 * still works, a known object reads the same). Values are sampled with a seeded PRNG so a
 * run is the same every time. {@link assertReachedValidation} checks that the replies are
 * mostly the 400s of the handlers' validation, not refusals before it.
 * With `FUZZ_TIMING=1` in the environment it prints each path's time (ms) and the callers
 * print the replies counted by status, to see where a walk spends its time.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';

/** What the driver needs from one service under test. */
export interface FuzzTarget {
  /** `http://host:port` of the API. */
  readonly base: string;
  /** The prefix every documented path is under (`/v1`). */
  readonly prefix: string;
  /** The OpenAPI document, as read from the service. */
  readonly doc: { paths: Record<string, Record<string, unknown>> };
  /** Headers of every request (the root/management/recovery token). */
  readonly headers: Record<string, string>;
  /** Documented paths (or `METHOD path`) left out, each for a stated reason in the caller. */
  readonly skip?: ReadonlySet<string>;
  /** Field names tried on bodies whose schema declares none (the service's usual fields). */
  readonly fields: readonly string[];
  /**
   * Valid bodies keyed by `METHOD path` (e.g. `POST /jobs`): each of their fields, nested ones
   * included, is replaced in turn by a wrong type or an out-of-range number, so the hostile
   * value reaches validation deep inside a body the handler otherwise accepts.
   */
  readonly seeds?: Readonly<Record<string, unknown>>;
  /** A plausible value of a path parameter (default `fuzz1`). */
  readonly plausible?: (path: string, param: string) => string;
  /** Whether a 5xx is legitimate for this reply (e.g. 503 no worker; the reference's routing 500s). */
  readonly allow5xx?: (status: number, body: string, method: string, path: string) => boolean;
  /**
   * `METHOD path`s whose body is not JSON in the reference: raw bytes (a KV value) or no body
   * at all (ignored): a 2xx for a malformed body is right there.
   */
  readonly bodyNotJson?: ReadonlySet<string>;
  /** Whether an empty 4xx body is the reference's wire answer here (e.g. a KV read of a missing key). */
  readonly allowEmpty4xx?: (status: number, method: string, path: string) => boolean;
  /** Paths whose GET streams (read a little, then hang up). */
  readonly streaming?: ReadonlySet<string>;
  /** Asserts the service still answers simple valid requests the same; throws if not. */
  readonly healthy: () => Promise<void>;
  /** The deterministic seed (default 20). */
  readonly seed?: number;
}

/** One reply that broke the rule. */
export interface Finding {
  readonly method: string;
  readonly path: string;
  readonly what: string;
  readonly status: number | 'timeout' | 'error';
  readonly body: string;
}

/** Totals of one walk. */
export interface FuzzResult {
  readonly requests: number;
  readonly operations: number;
  /** How many replies had each status (or `timeout`/`error`): shows the cases reached the handlers. */
  readonly statuses: Record<string, number>;
  /**
   * The same, of the cases aimed at validation: hostile path values, bodies and list tokens.
   * Not the query parameters: a server ignores one an operation does not declare, as the
   * reference's do, so most of those replies are rightly 200.
   */
  readonly validationStatuses: Record<string, number>;
  readonly findings: Finding[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const MiB = 1 << 20;
const TIMEOUT_MS = 10_000;

/** mulberry32: a small seeded PRNG (deterministic sampling, not security). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Path parameter values: each replaces one parameter (already URL-encoded where needed). */
const HOSTILE_PATH_VALUES: readonly string[] = [
  'x'.repeat(4000),
  '%00',
  'a%00b',
  '..',
  '%2e%2e',
  '..%2f..%2fsys',
  encodeURIComponent('ünï-😀-\u202e'),
  'fuzz1:cancel',
  'fuzz1:authenticate:callback',
  '%ff%fe',
  '-1',
  '99999999999999999999999',
];

/**
 * Path values no route may serve (a 2xx is a finding): dot segments, which clients normalise
 * away (the reference's Go servers redirect such a path to its cleaned form), NUL, and bytes
 * that are not UTF-8.
 */
const MALFORMED_PATH_VALUES: ReadonlySet<string> = new Set(['..', '%2e%2e', '..%2f..%2fsys', '%00', 'a%00b', '%ff%fe']);

const NOT_JSON: readonly string[] = ['{', '{"a":', '{"a":1}garbage', '\u0000', 'nul'];
const TOO_DEEP: readonly string[] = [deepArray(10_000), deepObject(10_000), `{"a":${deepArray(10_000)}}`, `{"a":${deepObject(10_000)}}`];
/** Raw bodies that are not well-formed, are JSON but not an object, or are nested far too deep. */
const RAW_BODIES: readonly string[] = [...NOT_JSON, '[]', '1', 'null', '"s"', '1e309', ...TOO_DEEP];
/** The raw bodies no JSON route may accept (a 2xx is a finding): not JSON, a number no reader holds, nested past any bound. */
const MALFORMED_BODIES: ReadonlySet<string> = new Set([...NOT_JSON, '1e309', ...TOO_DEEP]);

/** Out-of-range numbers as raw JSON text. */
const NUMBERS: readonly string[] = ['1e309', '-1e309', '-1', '9223372036854775808', '18446744073709551616', '"NaN"', '-0', '1.5', '1e-400'];

/** One value of each JSON type, as raw JSON text. */
const TYPES: readonly string[] = ['"str"', '12345', 'true', '{"k":"v"}', '["a",1]', 'null'];

/** Query values: out of range, malformed, long, a bexpr 5,000 parentheses deep, bad tokens. */
const QUERY_VALUES: readonly string[] = [
  '-1',
  '1e309',
  'NaN',
  '9223372036854775808',
  '18446744073709551616',
  'abc',
  '%00',
  'x'.repeat(8000),
  encodeURIComponent('('.repeat(5000) + 'a == "b"' + ')'.repeat(5000)),
  encodeURIComponent('not '.repeat(2000) + 'a == "b"'),
  encodeURIComponent('"a" in ' + '['.repeat(3000)),
  encodeURIComponent(Buffer.from('{"a":' + deepArray(3000) + '}').toString('base64')),
  encodeURIComponent(Buffer.from('\u0000\u0001garbage').toString('base64url')),
];
/** Query names tried on every GET besides the declared ones. */
const QUERY_NAMES: readonly string[] = ['index', 'wait', 'page_size', 'per_page', 'next_token', 'list_token', 'filter', 'prefix'];

/** A field takes HCL (job specs, policies, rules) when its name says so. */
const HCL_FIELD = /hcl|rules|^policy$|jobhcl|spec$/i;
/** A field takes a boolean expression (binding-rule selectors, filters) when its name says so. */
const BEXPR_FIELD = /selector|filter/i;
const BEXPR_VALUES: readonly string[] = [
  '('.repeat(5000) + 'a == "b"' + ')'.repeat(5000),
  'not '.repeat(5000) + 'a == "b"',
  'a == "b" and '.repeat(3000) + 'a == "b"',
  'a.'.repeat(3000) + 'b == 1',
  'a == "\u0000"',
];

/** HCL texts nested deep in each way the grammar nests, with out-of-range numbers, NUL, unterminated heredocs. */
const HOSTILE_HCL: ReadonlyArray<[string, string]> = [
  ['5,000 blocks deep', 'job "a" { '.repeat(5000) + '}'.repeat(5000)],
  ['5,000 tuples deep', 'a = ' + '['.repeat(5000) + ']'.repeat(5000)],
  ['3,000 objects deep', 'a = ' + '{ b = '.repeat(3000) + '1' + ' }'.repeat(3000)],
  ['5,000 parentheses deep', 'a = ' + '('.repeat(5000) + '1' + ')'.repeat(5000)],
  ['3,000 interpolations deep', 'a = "' + '${'.repeat(3000) + '"'],
  ['5,000 unary minus', 'a = ' + '-'.repeat(5000) + '1'],
  ['numbers out of range', 'job "a" {\n  priority = 1e309\n  group "g" {\n    count = 99999999999999999999999\n  }\n}\n'],
  ['NUL in a label', 'job "a\u0000" {\n  group "g\u0000" {}\n}\n'],
  ['unterminated heredoc', 'a = <<EOF\nx\n'],
];

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

interface Sent {
  status: number | 'timeout' | 'error';
  body: string;
}

/** Sends one request with `path` as is (no normalisation of `..`), reading at most 64 KiB of the reply; `stream`: the body in chunks. */
function send(t: FuzzTarget, method: string, path: string, { body, stream }: { body: string | undefined; stream: boolean }): Promise<Sent> {
  const url = new URL(t.base);
  return new Promise((resolve) => {
    let done = false;
    const finish = (s: Sent) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(s);
    };
    const headers: Record<string, string> = { ...t.headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: stream ? false : agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      if (stream && res.statusCode === 200) {
        // A stream that started answers correctly; hang up rather than wait for it to end.
        res.destroy();
        finish({ status: 200, body: '' });
        return;
      }
      res.on('data', (c: Buffer) => {
        if (size < 65536) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => finish({ status: 'error', body: '' }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: 'timeout', body: '' });
    }, TIMEOUT_MS);
    req.on('error', (e) => finish({ status: 'error', body: String(e) }));
    req.end(body);
  });
}

/** Bodies built from `fields`: wrong types, out-of-range numbers, NUL, 1 MiB strings, deep HCL. */
function fieldBodies(fields: readonly string[], hcl: readonly string[], rnd: () => number): Array<[string, string]> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const obj = (entries: Array<[string, string]>) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  const out: Array<[string, string]> = [];
  for (const type of TYPES) out.push([`every field ${type}`, obj(fields.map((f) => [f, type]))]);
  for (let i = 0; i < Math.min(fields.length, 6); i++) {
    const f = pick(fields);
    const type = pick(TYPES);
    const n = pick(NUMBERS);
    out.push([`${f}=${type}`, obj([[f, type]])]);
    out.push([`${f}=${n}`, obj([[f, n]])]);
  }
  out.push(['every field 1e309', obj(fields.map((f) => [f, '1e309']))]);
  out.push(['every field with NUL', obj(fields.map((f) => [f, JSON.stringify('a\u0000b')]))]);
  // 1 MiB in two fields at a time: enough to pass any small-string expectation, cheap to send.
  for (let i = 0; i < 2; i++) {
    const f = pick(fields);
    out.push([`1 MiB in ${f}`, obj([[f, JSON.stringify('x'.repeat(MiB))]])]);
  }
  for (const f of fields.filter((x) => BEXPR_FIELD.test(x))) for (const v of BEXPR_VALUES) out.push([`${f}=${v.slice(0, 30)}`, obj([[f, JSON.stringify(v)]])]);
  for (const [what, text] of HOSTILE_HCL) if (hcl.length > 0) out.push([`HCL ${what}`, obj(hcl.map((f) => [f, JSON.stringify(text)]))]);
  return out;
}

/** Every field path (keys and array indexes) of `v`, parents before children. */
function fieldPaths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (v === null || typeof v !== 'object') return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.flatMap(([k, x]) => [[...at, k], ...fieldPaths(x, [...at, k])]);
}

/** `seed` with the field at `path` replaced by the raw JSON text `raw`, as JSON text. */
function withField(seed: unknown, path: Array<string | number>, raw: string): string {
  const marker = '\u0001fuzz\u0001';
  const copy = structuredClone(seed) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1]] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), raw);
}

/** Bodies from a valid `seed`: each nested field (sampled, at most 16) once a wrong type, once out of range. */
function seedBodies(seed: unknown, rnd: () => number): Array<[string, string]> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const paths = fieldPaths(seed);
  const chosen = paths.length <= 16 ? paths : Array.from({ length: 16 }, () => pick(paths));
  return chosen.flatMap((p) => {
    const type = pick(TYPES);
    const n = pick(NUMBERS);
    return [
      [`${p.join('.')}=${type}`, withField(seed, p, type)],
      [`${p.join('.')}=${n}`, withField(seed, p, n)],
    ] as Array<[string, string]>;
  });
}

/**
 * `list_token`s forged from a real one (`token`, base64url JSON): each field once a wrong type
 * or out of range; empty when the token is not base64url JSON.
 */
function forgedTokens(token: string, rnd: () => number): Array<[string, string]> {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return [];
  }
  if (doc === null || typeof doc !== 'object') return [];
  return seedBodies(doc, rnd).map(([what, json]) => [what, Buffer.from(json).toString('base64url')]);
}

/** The documented `in: query` parameter names of one operation (path-level and own). */
function queryNames(item: Record<string, unknown>, op: Record<string, unknown>): string[] {
  const ps = [...((item.parameters as { name: string; in: string }[]) ?? []), ...((op.parameters as { name: string; in: string }[]) ?? [])];
  return ps.filter((p) => p.in === 'query').map((p) => p.name);
}

/** The declared body field names of one operation (none when its schema declares none). */
function declaredFields(op: Record<string, unknown>): string[] {
  const schema = (op.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.[
    'application/json'
  ]?.schema;
  return Object.keys(schema?.properties ?? {});
}

/**
 * Walks every documented path and method of `t.doc` (see the module doc), returning every
 * finding and the number of requests sent; throws when `t.healthy` fails after a path's
 * batch (naming the path), or when a key of `t.seeds` or `t.bodyNotJson` names no walked
 * operation.
 */
export async function walkRoutes(t: FuzzTarget): Promise<FuzzResult> {
  const rnd = prng(t.seed ?? 20);
  const findings: Finding[] = [];
  let requests = 0;
  let operations = 0;
  const statuses: Record<string, number> = {};
  const validationStatuses: Record<string, number> = {};
  const walked = new Set<string>();
  for (const [docPath, item] of Object.entries(t.doc.paths)) {
    if (t.skip?.has(docPath)) continue;
    const started = performance.now();
    const params = [...docPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const fill = (override?: [string, string]) =>
      t.prefix +
      docPath.replace(/\{([^}]+)\}/g, (_, p: string) =>
        override && override[0] === p ? override[1] : encodeURIComponent(t.plausible?.(docPath, p) ?? 'fuzz1'),
      );
    for (const m of METHODS) {
      const op = item[m] as Record<string, unknown> | undefined;
      if (!op || t.skip?.has(`${m.toUpperCase()} ${docPath}`)) continue;
      operations++;
      const method = m.toUpperCase();
      walked.add(`${method} ${docPath}`);
      const stream = t.streaming?.has(docPath) ?? false;
      const takesBody = m !== 'get' && m !== 'delete';
      const bodyIsJson = !t.bodyNotJson?.has(`${method} ${docPath}`);
      /** Sends one case; `malformed`: no route may answer it with a 2xx; `query`: a query parameter case. */
      const check = async (
        what: string,
        path: string,
        { body, malformed = false, query = false }: { body?: string; malformed?: boolean; query?: boolean } = {},
      ) => {
        requests++;
        const r = await send(t, method, path, { body, stream });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (!query) validationStatuses[r.status] = (validationStatuses[r.status] ?? 0) + 1;
        const bad =
          typeof r.status !== 'number' ||
          (malformed && r.status >= 200 && r.status < 300) ||
          (r.status >= 500 && !t.allow5xx?.(r.status, r.body, method, docPath)) ||
          (r.status >= 400 && r.status < 500 && r.body.trim() === '' && !t.allowEmpty4xx?.(r.status, method, docPath));
        if (bad) findings.push({ method, path: docPath, what, status: r.status, body: r.body.slice(0, 300) });
      };
      // Half the hostile path values per parameter (sampled): each path has many operations.
      for (const p of params)
        for (const v of HOSTILE_PATH_VALUES)
          if (rnd() < 0.5)
            await check(`{${p}}=${v.slice(0, 40)}`, fill([p, v]), { body: takesBody ? '{}' : undefined, malformed: MALFORMED_PATH_VALUES.has(v) });
      if (takesBody) {
        for (const raw of RAW_BODIES) await check(`body ${raw.slice(0, 30)}`, fill(), { body: raw, malformed: bodyIsJson && MALFORMED_BODIES.has(raw) });
        const seed = t.seeds?.[`${method} ${docPath}`];
        const declared = declaredFields(op);
        // HCL only where a field is known to take it (declared, or in the route's seed): each text is costly to send.
        const hcl = [...declared, ...Object.keys(seed !== null && typeof seed === 'object' ? seed : {})].filter((f) => HCL_FIELD.test(f));
        for (const [what, body] of fieldBodies(declared.length > 0 ? declared : t.fields, [...new Set(hcl)], rnd)) await check(what, fill(), { body });
        if (seed !== undefined) for (const [what, body] of seedBodies(seed, rnd)) await check(what, fill(), { body });
      }
      if (m === 'get') {
        const names = [...new Set([...queryNames(item, op), ...QUERY_NAMES])];
        // A real list_token, forged field by field: the token must be checked, not trusted.
        const plain = await send(t, method, fill(), { body: undefined, stream });
        const token = typeof plain.status === 'number' && plain.status === 200 ? /"list_token":"([A-Za-z0-9_-]+)"/.exec(plain.body)?.[1] : undefined;
        if (token) for (const [what, forged] of forgedTokens(token, rnd)) await check(`list_token ${what}`, `${fill()}?list_token=${forged}`);
        for (const q of names) {
          for (let i = 0; i < 2; i++) {
            const v = QUERY_VALUES[Math.floor(rnd() * QUERY_VALUES.length)];
            // A blocking query with a far index is legitimate; keep its wait short.
            const wait = q === 'index' ? '&wait=10ms' : '';
            await check(`?${q}=${decodeURIComponent(v).slice(0, 30)}`, `${fill()}?${q}=${v}${wait}`, { query: true });
          }
        }
      }
    }
    if (process.env.FUZZ_TIMING) console.error(`${docPath} ${Math.round(performance.now() - started)} ms`);
    try {
      await t.healthy();
    } catch (e) {
      throw new Error(`after ${docPath}: ${(e as Error).message}`);
    }
  }
  // A seed or exception naming no walked operation is dead (a misspelt key): say so.
  const dead = [...Object.keys(t.seeds ?? {}), ...(t.bodyNotJson ?? [])].filter((k) => !walked.has(k));
  if (dead.length > 0) throw new Error(`seeds or bodyNotJson name operations the walk never met: ${dead.join(', ')}`);
  return { requests, operations, statuses, validationStatuses, findings };
}

/**
 * Asserts that the walk reached the handlers' validation, which it aims at: most replies
 * (more than half) to the cases aimed at it are 400, and refusals at authentication or
 * authorization (401, 403) are at most 10 % of all replies (a walk refused before the
 * handlers everywhere would find nothing; some 403s are handlers' answers, such as a second
 * ACL bootstrap).
 * @throws AssertionError naming the counts by status.
 */
export function assertReachedValidation(r: FuzzResult): void {
  const aimed = Object.values(r.validationStatuses).reduce((a, b) => a + b, 0);
  const refused = (r.statuses[401] ?? 0) + (r.statuses[403] ?? 0);
  const counts = `${JSON.stringify(r.validationStatuses)} (all replies: ${JSON.stringify(r.statuses)})`;
  assert.ok(
    (r.validationStatuses[400] ?? 0) > aimed / 2,
    `most of the ${aimed} replies to path values, bodies and list tokens must be validation 400s: ${counts}`,
  );
  assert.ok(refused <= r.requests * 0.1, `${refused} of ${r.requests} replies refused the caller (401/403): ${counts}`);
}

/** The findings as one readable text, one line each. */
export function describeFindings(fs: readonly Finding[]): string {
  return fs.map((f) => `${f.method} ${f.path} [${f.what}] → ${f.status} ${JSON.stringify(f.body)}`).join('\n');
}
