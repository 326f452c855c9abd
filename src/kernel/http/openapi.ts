/**
 * `?help=1` and OpenAPI generated from route declarations, never written by hand per
 * path (spec 000 "Help response"; reference/secrets.md §1.12). Because patterns are
 * only literals and `:name` captures, an OpenAPI path is the pattern with `{name}`.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import type { CompiledPath, Operation, OperationSpec } from './route.js';

/** The `info` block of a generated document. */
export interface OpenApiInfo {
  readonly title: string;
  readonly description: string;
  readonly version: string;
}

// Help and OpenAPI read only the declarative parts of a path, never call handlers: any
// path is one whose handlers take nothing (`never`) and return anything.
type AnyPath = CompiledPath<never, unknown>;
type AnyOp = OperationSpec<never, unknown>;

/** `data/:path+` → `data/{path}`; `sessions/:id:cancel` → `sessions/{id}:cancel`. */
export function openapiPattern(pattern: string): string {
  return pattern.replace(/(^|\/):([A-Za-z_][A-Za-z0-9_]*)[+*]?/g, '$1{$2}');
}

/**
 * The paths among `paths` that document `queried` (relative to the service or mount
 * root, no trailing `/`): the path the queried one is an instance of (keyed `/`) and
 * every declared path beneath it, keyed relative to the queried path with the rest of
 * their pattern (`mounts/secret` finds `mounts/:path+/tune` as `/tune`).
 */
export function pathsUnder<P extends AnyPath>(paths: readonly P[], queried: string): Map<string, P> {
  const out = new Map<string, P>();
  const q = queried === '' ? [] : queried.split('/');
  for (const p of paths) {
    const segs = p.spec.pattern === '' ? [] : p.spec.pattern.split('/');
    for (const rest of align(segs, 0, q, 0)) {
      const key = '/' + openapiPattern(segs.slice(rest).join('/'));
      if (!out.has(key)) out.set(key, p);
    }
  }
  return out;
}

/**
 * Indexes of pattern segments left over once the queried segments `q[qi…]` are matched
 * by `segs[si…]`: literals must be equal, `:name` takes one segment, `:name+` one or
 * more, `:name*` any number.
 */
function align(segs: readonly string[], si: number, q: readonly string[], qi: number): number[] {
  if (qi === q.length) return [si];
  if (si === segs.length) return [];
  const seg = segs[si];
  const kind = /^:[A-Za-z_][A-Za-z0-9_]*([+*]?)$/.exec(seg)?.[1];
  if (kind === undefined) return seg === q[qi] ? align(segs, si + 1, q, qi + 1) : [];
  if (kind === '') return align(segs, si + 1, q, qi + 1);
  const out: number[] = [];
  for (let take = 1; qi + take <= q.length; take++) out.push(...align(segs, si + 1, q, qi + take));
  return out;
}

/**
 * How a path's operations become HTTP methods in a document: `logical` (the secrets
 * service, the gateway) documents `read`/`list` as GET, `create`/`update` as one POST,
 * `patch` as PATCH, `delete` as DELETE; `http` (routes declared by method, api-service.ts)
 * documents `read` as GET, `create` as POST, `update` as PUT, `delete` as DELETE.
 */
export type OpenApiMethods = 'logical' | 'http';

/**
 * Where the services whose reference products publish no OpenAPI document (discovery,
 * scheduler, gateway) publish theirs: `GET /v1/openapi.json` (docs/compatibility.md).
 */
export const OPENAPI_PATTERN = 'openapi.json';

/** The OpenAPI version of every generated document (the reference's, reference/secrets.md §1.12). */
const OPENAPI_VERSION = '3.0.2';

/**
 * The OpenAPI 3 path items of `paths` (from {@link pathsUnder}), keyed as given. Captures
 * already fixed by the queried path (absent from the key) are not parameters. A path with a
 * `list` operation also gets a `<key>/` item whose GET takes `list=true`.
 */
function openapiPathItems(paths: Map<string, AnyPath>, methods: OpenApiMethods = 'logical'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, p] of paths) {
    const params = p.paramNames
      .filter((n) => key.includes(`{${n}}`))
      .map((n) => ({ name: n, in: 'path', required: true, description: p.spec.params?.[n] ?? '', schema: { type: 'string' } }));
    const item: Record<string, unknown> = { description: p.spec.synopsis };
    if (params.length) item.parameters = params;
    const ops = p.spec.operations as Partial<Record<Operation, AnyOp>>;
    const fieldsOf = (op: AnyOp) => op.fields ?? p.spec.fields ?? {};
    if (ops.read) item.get = queryOperation(ops.read, fieldsOf(ops.read));
    if (methods === 'http') {
      if (ops.create) item.post = bodyOperation(ops.create, fieldsOf(ops.create));
      if (ops.update) item.put = bodyOperation(ops.update, fieldsOf(ops.update));
    } else {
      const write = ops.create ?? ops.update;
      if (write) item.post = bodyOperation(write, fieldsOf(write));
    }
    if (ops.patch) item.patch = bodyOperation(ops.patch, fieldsOf(ops.patch), 'application/merge-patch+json');
    if (ops.delete) item.delete = queryOperation(ops.delete, fieldsOf(ops.delete));
    if (['get', 'post', 'put', 'patch', 'delete'].some((m) => m in item)) out[key] = item;
    if (ops.list) {
      const list = queryOperation(ops.list, fieldsOf(ops.list));
      (list.parameters as unknown[]).push({ name: 'list', in: 'query', required: true, schema: { type: 'string', enum: ['true'] } });
      out[key.endsWith('/') ? key : key + '/'] = { description: p.spec.synopsis, ...(params.length ? { parameters: params } : {}), get: list };
    }
  }
  return out;
}

/** An OpenAPI 3 document for `paths` (from {@link pathsUnder}): the `?help=1` fragment. */
export function openapiDocument(paths: Map<string, AnyPath>, info: OpenApiInfo, methods: OpenApiMethods = 'logical') {
  return { openapi: OPENAPI_VERSION, info, paths: openapiPathItems(paths, methods) };
}

/**
 * A whole service's OpenAPI 3 document: every path of `tables` (each mounted at `prefix`,
 * e.g. `/secret/`; `/` for a service without mounts), served under `/v1` (the `servers`
 * entry). The first table to document a key keeps it.
 */
export function serviceOpenapiDocument(
  info: OpenApiInfo,
  tables: readonly { readonly prefix: string; readonly paths: readonly AnyPath[]; readonly parameters?: readonly unknown[] }[],
  methods: OpenApiMethods = 'logical',
) {
  const paths: Record<string, unknown> = {};
  for (const t of tables) {
    for (const [key, item] of Object.entries(openapiPathItems(pathsUnder(t.paths, ''), methods))) {
      const full = t.prefix + key.slice(1);
      if (full in paths) continue;
      const it = item as { parameters?: unknown[] };
      paths[full] = t.parameters?.length ? { ...it, parameters: [...t.parameters, ...(it.parameters ?? [])] } : it;
    }
  }
  return { openapi: OPENAPI_VERSION, info, servers: [{ url: '/v1' }], paths };
}

function queryOperation(op: AnyOp, fields: Readonly<Record<string, TSchema>>) {
  return { summary: op.summary, parameters: queryParameters(op, fields), responses: { '200': { description: 'OK' }, '204': { description: 'empty body' } } };
}

function queryParameters(op: AnyOp, fields: Readonly<Record<string, TSchema>>) {
  return Object.entries(fields).map(([name, schema]) => ({
    name,
    in: 'query',
    required: op.required?.includes(name) ?? false,
    description: schema.description ?? '',
    schema: oasSchema(schema),
  }));
}

function bodyOperation(op: AnyOp, fields: Readonly<Record<string, TSchema>>, contentType = 'application/json') {
  const properties = Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, oasSchema(s)]));
  const schema: Record<string, unknown> = op.rawBody
    ? { type: 'object', additionalProperties: true }
    : { type: 'object', properties, ...(op.required?.length ? { required: [...op.required] } : {}) };
  return {
    summary: op.summary,
    ...(op.query && Object.keys(op.query).length > 0 && { parameters: queryParameters({ summary: op.summary, handle: op.handle }, op.query) }),
    requestBody: { required: !!op.rawBody || !!op.required?.length, content: { [contentType]: { schema } } },
    responses: { '200': { description: 'OK' }, '204': { description: 'empty body' } },
  };
}

/**
 * A TypeBox (JSON Schema) field schema as an OpenAPI 3.0 schema object, which is a subset
 * of JSON Schema: plain JSON (TypeBox keeps symbols on its objects), `const` as a
 * one-value `enum`, `patternProperties` (TypeBox's `Record`) as `additionalProperties`,
 * and no `$id`/`$schema`.
 */
function oasSchema(schema: unknown): unknown {
  const s = JSON.parse(JSON.stringify(schema)) as unknown;
  return convert(s);
}

function convert(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(convert);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === '$id' || k === '$schema') continue;
    // Values, not schemas: kept as they are.
    if (k === 'default' || k === 'enum' || k === 'examples' || k === 'example') out[k] = x;
    else if (k === 'const') out.enum = [x];
    else if (k === 'patternProperties') {
      const values = Object.values(x as Record<string, unknown>).map(convert);
      out.additionalProperties = values.length === 1 ? values[0] : { anyOf: values };
    } else if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([name, p]) => [name, convert(p)]));
    } else out[k] = convert(x);
  }
  return out;
}

/**
 * Markdown help for one path, after the reference's template (reference/secrets.md
 * §1.12): request, matching route, synopsis, parameters, description.
 */
export function helpForPath(request: string, p: AnyPath): string {
  const fields = new Map<string, TSchema>(Object.entries(p.spec.fields ?? {}));
  for (const op of Object.values(p.spec.operations as Record<string, AnyOp>)) for (const [k, s] of Object.entries(op.fields ?? {})) fields.set(k, s);
  const params = [
    ...p.paramNames.map((n) => `${n} (string)\n    ${p.spec.params?.[n] ?? '<no description>'}`),
    ...[...fields].map(([k, s]) => `${k} (${(s as { type?: string }).type ?? 'any'})\n    ${s.description ?? '<no description>'}`),
  ];
  return [
    `Request:        ${request}`,
    `Matching Route: ${p.spec.pattern}`,
    '',
    p.spec.synopsis || '<no synopsis>',
    '',
    '## PARAMETERS',
    '',
    params.length ? params.join('\n\n') : 'none',
    '',
    '## DESCRIPTION',
    '',
    p.spec.description ?? '<no description>',
  ].join('\n');
}

/** Markdown help for a whole mount or service root: its description and every path. */
export function helpForRoot(description: string, paths: readonly AnyPath[]): string {
  const list = [...paths].sort((a, b) => a.spec.pattern.localeCompare(b.spec.pattern)).map((p) => `    ${p.spec.pattern}\n        ${p.spec.synopsis}`);
  return `## DESCRIPTION\n\n${description}\n\n## PATHS\n\nThe following paths are supported by this backend. To view help for\nany of the paths below, use the help command with any route matching\nthe path pattern.\n\n${list.join('\n\n')}`;
}
