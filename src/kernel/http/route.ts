/**
 * Routes as data (DESIGN.md "Routes are data", STYLE.md §1): one declaration per path
 * drives dispatch, input validation, the ACL capability and `?help=1` / OpenAPI.
 *
 * Pattern syntax maps 1:1 onto OpenAPI: literal segments, `:name` (one segment) and a
 * trailing `:name+` (one or more segments) or `:name*` (zero or more). A literal segment
 * may carry a custom verb after a colon, and so may a `:name` segment: `targets:authorize-session`,
 * `sessions/:id:cancel` (the style of Google's API design guide that the access gateway's
 * reference uses; reference/gateway.md); a capture before a verb holds no `:`. A captured value
 * never ends in `.` (spec 000 "Limits": such a path is unsupported, 404) nor in `/`
 * (list operations have their trailing `/` stripped before matching), and a `:name+` capture
 * (which may stand before more segments: `job/:id+/allocations`) holds no `.` or `..`
 * segment.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';

/** Logical operations (reference/secrets.md §1.2). POST/PUT become create or update. */
export type Operation = 'read' | 'list' | 'create' | 'update' | 'delete' | 'patch';

/** One operation of a path. `C` is the service's request context, `R` its result. */
export interface OperationSpec<C, R> {
  /** One line for help and the OpenAPI `summary`. */
  readonly summary: string;
  /**
   * Input fields (body for writes, query for reads/lists/deletes), validated and
   * weakly coerced before the handler runs. Undefined: the path-level fields apply.
   */
  readonly fields?: Readonly<Record<string, TSchema>>;
  /** Names of required fields; a missing one is a 400 naming it. */
  readonly required?: readonly string[];
  /**
   * Query parameters of an operation whose `fields` are its body (documented only: the
   * discovery service's and the scheduler's writes, api-service.ts).
   */
  readonly query?: Readonly<Record<string, TSchema>>;
  /** The handler gets the raw JSON body object instead of validated fields (KV v1). */
  readonly rawBody?: boolean;
  /** Runs the operation; `undefined` means "no content" (the service decides 204/404). */
  readonly handle: (ctx: C) => Promise<R | undefined>;
}

/** The declaration of one path of an engine or service. */
export interface PathSpec<C, R> {
  /** e.g. `data/:path+`, relative to the mount or service root; no leading `/`. */
  readonly pattern: string;
  /** One sentence for help. */
  readonly synopsis: string;
  /** Longer markdown for help. */
  readonly description?: string;
  /** Descriptions of the pattern's `:params`, for help and OpenAPI. */
  readonly params?: Readonly<Record<string, string>>;
  /** Fields shared by every operation of this path unless an operation declares its own. */
  readonly fields?: Readonly<Record<string, TSchema>>;
  readonly operations: Partial<Readonly<Record<Operation, OperationSpec<C, R>>>>;
  /**
   * Existence check: decides whether POST/PUT is `create` (false) or `update` (true).
   * Absent: always `update` (reference/secrets.md §5.4).
   */
  readonly exists?: (ctx: C) => Promise<boolean>;
  /** Served without a token (login endpoints, spec 000 "Authentication" 3). */
  readonly unauthenticated?: boolean;
  /**
   * A request path ending in `/` matches this path as without it: its last capture is a
   * prefix, which users write with the slash (`sys/leases/revoke-prefix/auth/approle/`).
   */
  readonly trailingSlash?: boolean;
}

/** A compiled path: its declaration, its regex and the names of its captures. */
export interface CompiledPath<C, R> {
  readonly spec: PathSpec<C, R>;
  readonly regex: RegExp;
  readonly paramNames: readonly string[];
  /** The literal part of the pattern before the first parameter, e.g. `data/`. */
  readonly literalPrefix: string;
}

/** A successful match: the path and its captured, decoded parameters. */
export interface RouteMatch<C, R> {
  readonly path: CompiledPath<C, R>;
  readonly params: Readonly<Record<string, string>>;
}

// A literal segment may carry custom verbs: `oidc:authenticate:callback`.
const SEGMENT = /^[A-Za-z0-9_.-]+(?::[a-z][a-z-]*)*$/;
const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)(?:([+*])|(:[a-z][a-z-]*))?$/;

/**
 * Compiles one pattern. Throws at startup (never at request time) when the pattern is
 * malformed, naming it (STYLE.md: "a bad schema stops startup").
 */
export function compilePath<C, R>(spec: PathSpec<C, R>): CompiledPath<C, R> {
  const segments = spec.pattern === '' ? [] : spec.pattern.split('/');
  const paramNames: string[] = [];
  let source = '';
  let literalPrefix = '';
  let literal = true;
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    const sep = i === 0 ? '' : '/';
    const m = PARAM.exec(seg);
    if (!m) {
      if (!SEGMENT.test(seg)) throw new Error(`route pattern "${spec.pattern}": bad segment "${seg}"`);
      source += sep + escapeRegex(seg);
      if (literal) literalPrefix += seg + '/';
      return;
    }
    literal = false;
    const [, name, kind, verb] = m;
    if (kind === '*' && !last) throw new Error(`route pattern "${spec.pattern}": ":${name}*" must be last`);
    paramNames.push(name);
    // Captures may not end in "/" or "." (module doc); "*" may also be empty.
    if (verb) source += `${sep}([^/:]*[^/.:]|[^/.:])${escapeRegex(verb)}`;
    // Nor a `.` or `..` segment: a multi-segment capture (a job ID holding `/`, a secret's path) never walks up.
    else if (kind === '+') source += `${sep}(?!(?:[^/]*/)*\\.\\.?(?:/|$))(.*[^/.]|[^/.])`;
    else if (kind === '*') source += `(?:${sep}(.*[^/.]|[^/.]))?`;
    else source += `${sep}([^/]*[^/.]|[^/.])`;
  });
  return { spec, regex: new RegExp(`^${source}$`), paramNames, literalPrefix };
}

/** An ordered route table; the first declaration that matches wins. */
export class RouteTable<C, R> {
  readonly paths: readonly CompiledPath<C, R>[];

  constructor(specs: readonly PathSpec<C, R>[]) {
    this.paths = specs.map((s) => compilePath(s));
  }

  /**
   * Matches `path` (relative, no leading `/`; a trailing `/` only for paths declaring
   * {@link PathSpec.trailingSlash}). Returns `undefined` when no pattern matches.
   */
  match(path: string): RouteMatch<C, R> | undefined {
    const stripped = path.endsWith('/') ? path.replace(/\/+$/, '') : undefined;
    for (const p of this.paths) {
      const m = p.regex.exec(path) ?? (stripped !== undefined && p.spec.trailingSlash ? p.regex.exec(stripped) : null);
      if (!m) continue;
      const params: Record<string, string> = {};
      p.paramNames.forEach((n, i) => (params[n] = m[i + 1] ?? ''));
      return { path: p, params };
    }
    return undefined;
  }
}

/**
 * Maps an HTTP method (after the `LIST` shim) and query to an operation, before the
 * existence check splits writes into create/update. `undefined` = method not supported.
 * Source: reference/secrets.md §1.2 (`GET ?list=true` ≡ `LIST`; PUT ≡ POST).
 */
export function operationOf(method: string, listQuery: boolean): Operation | 'write' | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return listQuery ? 'list' : 'read';
    case 'LIST':
      return 'list';
    case 'POST':
    case 'PUT':
      return 'write';
    case 'DELETE':
      return 'delete';
    case 'PATCH':
      return 'patch';
    default:
      return undefined;
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
