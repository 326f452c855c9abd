/**
 * ACL bootstrap and token endpoints of the scheduler (the reference's
 * `command/agent/acl_endpoint.go` `ACLTokenBootstrap`, `ACLTokensRequest`,
 * `ACLTokenSpecificRequest`; `nomad/acl_endpoint.go` `Bootstrap`, `UpsertTokens`,
 * `DeleteTokens`, `ListTokens`, `GetToken`, `ResolveToken`; `nomad/structs/acl.go`
 * `ACLToken.Canonicalize` and `Validate`):
 *
 * ```text
 * POST|PUT  /v1/acl/bootstrap         no token; once, then only after a reset (data_dir/acl-bootstrap-reset)
 * GET       /v1/acl/tokens            management; stubs without SecretID; ?prefix= (AccessorID), ?global=true
 * POST|PUT  /v1/acl/token             management; create (a body AccessorID makes it an update)
 * GET       /v1/acl/token/self        the caller's own token, secret included
 * GET       /v1/acl/token/:accessor   management, or the token itself
 * POST|PUT  /v1/acl/token/:accessor   management; update (Type, Global and expiry cannot change)
 * DELETE    /v1/acl/token/:accessor   management; empty reply
 * ```
 *
 * Bootstrap and writes of global tokens go to the authoritative region; local tokens are
 * written where the request lands (reference/sched.md §2.3).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { join } from 'node:path';
import { CairnError, type ApiQuery } from '../../../kernel/http/index.js';
import { formatTime, parseTime } from '../../../kernel/util/duration.js';
import { formatGoDuration, parseGoDuration } from '../../../kernel/util/go-duration.js';
import { parseGoBool } from '../../../kernel/util/go-bool.js';
import { BOOTSTRAP_TOKEN_NAME, MANAGEMENT_TOKEN_TYPE, TOKEN_NOT_FOUND, TOKEN_TYPES } from '../acl/index.js';
import { invalidObject } from '../acl-write.js';
import { DEFAULT_TTL_BOUNDS } from '../auth/auth-method.js';
import { decodeStruct } from '../auth/decode.js';
import { BOOTSTRAP_META_ID } from '../bootstrap.js';
import { ACL_MANAGEMENT, requireAclSupport, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { PREFIX_QUERY, queryUuidPrefix, requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { secretKey, T, type MetaDoc, type RoleDoc, type RoleLink, type TokenDoc } from '../state.js';
import { makeToken, renderToken, tokenHash, tokenStub, withLiveRoles } from '../token.js';
import { decodeLinks, fieldOf, UUID } from '../go-struct.js';

/** The reset file in `data_dir`: it holds the reset index that allows one more bootstrap (reference `aclBootstrapReset`). */
const BOOTSTRAP_RESET_FILE = 'acl-bootstrap-reset';
/** Longest token name in bytes (the reference's `maxTokenNameLength`). */
const MAX_TOKEN_NAME_BYTES = 256;

/** The reset index in `data_dir/acl-bootstrap-reset`: its leading integer (Go's `%d`), 0 when missing or not a number. */
function readResetIndex(dataDir: string): number {
  try {
    const m = /^\s*(\d+)/.exec(readFileSync(join(dataDir, BOOTSTRAP_RESET_FILE), 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * `POST /v1/acl/bootstrap`: the global management token `Bootstrap Token`, secret from the
 * optional body `{"BootstrapSecret": "<uuid>"}`. The reset index is the index of the last
 * bootstrap (the meta document's ModifyIndex). @throws 400 `failed to decode request body:
 * …`; `invalid acl token` (secret not a UUID); `ACL bootstrap already done (reset index: N)`;
 * `Invalid bootstrap reset index (specified M, reset index: N)`; `ACL token with this secret
 * already exists`.
 */
async function bootstrap(ctx: Ctx): Promise<SchedReply> {
  let secret = '';
  try {
    const body = ctx.body<unknown>();
    if (body !== undefined)
      secret = decodeStruct(body, { goType: 'ACLTokenBootstrapRequest', fields: { BootstrapSecret: 'string' } }).BootstrapSecret as string;
  } catch (err) {
    throw schedBadRequest(`failed to decode request body: ${(err as Error).message}`);
  }
  const specified = readResetIndex(ctx.deps.config.dataDir);
  const { result, index } = await ctx.deps.state.txn((tx) => {
    // Decided inside the transaction: of concurrent calls only the first finds bootstrap possible.
    const meta = tx.get<MetaDoc>(T.meta, BOOTSTRAP_META_ID);
    if (meta?.Bootstrapped) {
      if (specified === 0) throw schedBadRequest(`ACL bootstrap already done (reset index: ${meta.ModifyIndex})`);
      if (specified !== meta.ModifyIndex) throw schedBadRequest(`Invalid bootstrap reset index (specified ${specified}, reset index: ${meta.ModifyIndex})`);
    }
    if (secret !== '' && !UUID.test(secret)) throw schedBadRequest('invalid acl token');
    if (secret !== '' && tx.getBy(T.tokens, 'secret', secretKey(secret))) throw schedBadRequest('ACL token with this secret already exists');
    const token = makeToken({ Name: BOOTSTRAP_TOKEN_NAME, Type: MANAGEMENT_TOKEN_TYPE, Global: true, ...(secret ? { SecretID: secret } : {}) }, ctx.deps.now());
    tx.put<MetaDoc>(T.meta, BOOTSTRAP_META_ID, { Bootstrapped: true });
    return tx.put(T.tokens, token.AccessorID, token);
  });
  return writeReply(index, renderToken(result, true));
}

/**
 * A token write's body, decoded as the reference's `ACLToken` (SecretID, Hash and times are
 * never taken from it). A field is undefined when the body leaves it out or sends `null`:
 * a create then takes the zero value, an update the stored value.
 */
interface TokenInput {
  readonly AccessorID: string;
  readonly Name?: string;
  readonly Type?: string;
  readonly Policies?: readonly string[];
  readonly Roles?: readonly { ID: string; Name: string }[];
  readonly Global?: boolean;
  /** Nanoseconds. */
  readonly ttlNs?: number;
  /** Epoch ms; Go's zero time counts as left out. */
  readonly expirationMs?: number;
}

/** What the token will hold once the body is merged over the stored token (or zero values). */
type TokenFields = Required<Pick<TokenInput, 'Name' | 'Type' | 'Policies' | 'Roles'>>;

/**
 * The body of a token write (the reference's `structs.ACLToken`; SecretID, Hash and times are
 * ignored). `Roles` and `ExpirationTime` are decoded by {@link tokenInput}, with texts the
 * declaration cannot give (`structs.ACLTokenRoleLink`, `time.Time`).
 */
const TokenBody = Go.struct(
  'ACLToken',
  {
    AccessorID: Go.string('empty on create'),
    Name: Go.string(),
    Type: Go.string('client or management'),
    Policies: Go.strings(),
    Roles: Go.any('[{"ID": "<role ID>", "Name": "<role name>"}]'),
    Global: Go.bool(),
    ExpirationTTL: Go.duration(),
    ExpirationTime: Go.any('an RFC 3339 time'),
  },
  { typePrefix: 'structs.' },
);

/**
 * The token in the decoded body `d`; `raw` is the body as sent, which says which fields it
 * gives (the decoded one has every field).
 */
function tokenInput(d: Static<typeof TokenBody>, raw: unknown): TokenInput {
  const given = (name: string) => fieldOf(raw, name) !== undefined;
  // Null when absent or null (Go's zero value), though the declared type cannot say so.
  const rawRoles = d.Roles ?? undefined;
  const roles = decodeLinks(rawRoles, { owner: 'ACLToken', field: 'Roles', linkType: 'ACLTokenRoleLink', keys: ['ID', 'Name'] });
  const rawTime = d.ExpirationTime ?? undefined;
  let expirationMs: number | undefined;
  if (rawTime !== undefined) {
    if (typeof rawTime !== 'string')
      throw schedBadRequest(`json: cannot unmarshal ${typeof rawTime} into Go struct field ACLToken.ExpirationTime of type time.Time`);
    const ms = parseTime(rawTime);
    if (Number.isNaN(ms)) throw schedBadRequest(`parsing time ${JSON.stringify(rawTime)} as "2006-01-02T15:04:05Z07:00": not an RFC3339 time`);
    if (!rawTime.startsWith('0001-01-01T00:00:00')) expirationMs = ms;
  }
  return {
    AccessorID: d.AccessorID,
    ...(given('Name') ? { Name: d.Name } : {}),
    ...(given('Type') ? { Type: d.Type } : {}),
    ...(given('Policies') ? { Policies: d.Policies } : {}),
    ...(rawRoles !== undefined ? { Roles: roles } : {}),
    ...(given('Global') ? { Global: d.Global } : {}),
    ...(given('ExpirationTTL') ? { ttlNs: d.ExpirationTTL } : {}),
    ...(expirationMs !== undefined ? { expirationMs } : {}),
  };
}

/** The stored token's TTL in ns (0 when none). */
const storedTtlNs = (t: TokenDoc) => (t.ExpirationTTL ? (parseGoDuration(t.ExpirationTTL) as number) : 0);

/** The reference's `ACLToken.Validate` messages, in its order, plus `cannot update token type`. */
function tokenErrors(f: TokenFields, input: TokenInput, nowMs: number, existing: TokenDoc | undefined): string[] {
  const errors: string[] = [];
  if (Buffer.byteLength(f.Name) > MAX_TOKEN_NAME_BYTES) errors.push('token name too long');
  const links = f.Policies.length + f.Roles.length;
  if (f.Type === 'client') {
    if (links === 0) errors.push('client token missing policies or roles');
  } else if (f.Type === MANAGEMENT_TOKEN_TYPE) {
    if (links !== 0) errors.push('management token cannot be associated with policies or roles');
  } else errors.push('token type must be client or management');
  if (!existing) {
    const ttl = input.ttlNs ?? 0;
    if (ttl < 0) errors.push(`token expiration TTL '${formatGoDuration(ttl)}' should not be negative`);
    const expires = input.expirationMs ?? (ttl !== 0 ? nowMs + ttl / 1e6 : undefined);
    if (expires !== undefined) {
      if (nowMs > expires) errors.push('expiration time cannot be before create time');
      const inNs = (expires - nowMs) * 1e6;
      const { min, max } = DEFAULT_TTL_BOUNDS;
      if (inNs > max) errors.push(`expiration time cannot be more than ${formatGoDuration(max)} in the future (was ${formatGoDuration(inNs)})`);
      else if (inNs < min) errors.push(`expiration time cannot be less than ${formatGoDuration(min)} in the future (was ${formatGoDuration(inNs)})`);
    }
    return errors;
  }
  if (input.Global !== undefined && input.Global !== existing.Global) errors.push('cannot toggle global mode');
  if (input.ttlNs !== undefined && input.ttlNs !== storedTtlNs(existing)) errors.push('cannot update expiration TTL');
  const storedMs = existing.ExpirationTime === undefined ? undefined : parseTime(existing.ExpirationTime);
  if (input.expirationMs !== undefined && input.expirationMs !== storedMs) errors.push('cannot update expiration time');
  if ((TOKEN_TYPES as readonly string[]).includes(f.Type) && f.Type !== existing.Type) errors.push('cannot update token type');
  return errors;
}

/** Each request's {@link TokenInput}, found once by its route's forward function for the handler. */
const tokenInputs = new WeakMap<Ctx, TokenInput>();

/**
 * The token of a write's declared body (the kernel decodes it on the first read), its
 * AccessorID matching `pathAccessor` when the path names one; found once per request.
 * @throws 400 `Request body is empty`, the decode errors, `ACL token accessor does not match request path`.
 */
function upsertInput(ctx: Ctx, pathAccessor: string | undefined): TokenInput {
  const known = tokenInputs.get(ctx);
  if (known) return known;
  const input = tokenInput(requireInput(ctx.input<Static<typeof TokenBody>>()), ctx.body());
  if (pathAccessor !== undefined && input.AccessorID !== pathAccessor) throw schedBadRequest('ACL token accessor does not match request path');
  tokenInputs.set(ctx, input);
  return input;
}

/**
 * Where a token write runs: a global token (as the body says, else as stored) in the
 * authoritative region, a local one here (reference/sched.md §2.3). The body's 400s come
 * first, after 400 `ACL support disabled`, as in the reference.
 */
function upsertForward(accessorInPath: boolean): (ctx: Ctx) => 'primary' | undefined {
  return (ctx) => {
    requireAclSupport(ctx);
    const input = upsertInput(ctx, accessorInPath ? ctx.params.accessor : undefined);
    const stored = input.AccessorID === '' ? undefined : ctx.deps.state.get<TokenDoc>(T.tokens, input.AccessorID);
    return (input.Global ?? stored?.Global ?? false) ? 'primary' : undefined;
  };
}

/** Where a token delete runs: a stored global token's in the authoritative region. */
function removeForward(ctx: Ctx): 'primary' | undefined {
  requireAclSupport(ctx);
  return ctx.deps.state.get<TokenDoc>(T.tokens, ctx.params.accessor!)?.Global ? 'primary' : undefined;
}

/**
 * Creates (no AccessorID) or updates a token: body decoded, validated, role links resolved
 * by ID or Name and deduplicated, Hash recomputed. An update keeps SecretID, CreateTime,
 * Global and expiry, and every field the body leaves out. @throws 400 `ACL token accessor does not match request
 * path`, `cannot find token <id>`, `token 0 invalid: <multierror>`, `cannot find role <id or
 * name>` (reference `UpsertTokens`, `upsertTokens`). Its route declares the rest: a
 * management token, a global token written in the authoritative region.
 */
async function upsert(ctx: Ctx, pathAccessor: string | undefined): Promise<SchedReply> {
  const input = upsertInput(ctx, pathAccessor);
  const accessor = input.AccessorID;
  const nowMs = ctx.deps.now();
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const existing = accessor === '' ? undefined : tx.get<TokenDoc>(T.tokens, accessor);
    if (accessor !== '' && !existing) throw schedBadRequest(`cannot find token ${accessor}`);
    const f: TokenFields = {
      Name: input.Name ?? existing?.Name ?? '',
      Type: input.Type ?? existing?.Type ?? '',
      Policies: input.Policies ?? existing?.Policies ?? [],
      // Kept links whose role is gone are dropped, not an error.
      Roles: input.Roles ?? (existing?.Roles ?? []).filter((l) => tx.get(T.roles, l.ID)).map((l) => ({ ID: l.ID, Name: '' })),
    };
    const errors = tokenErrors(f, input, nowMs, existing);
    if (errors.length > 0) throw invalidObject('token', errors);
    const roles: RoleLink[] = [];
    for (const link of f.Roles) {
      const role = link.ID === '' ? tx.getBy<RoleDoc>(T.roles, 'name', link.Name) : tx.get<RoleDoc>(T.roles, link.ID);
      if (!role) throw schedBadRequest(`cannot find role ${link.ID === '' ? link.Name : link.ID}`);
      if (!roles.some((r) => r.ID === role.ID)) roles.push({ ID: role.ID, Name: role.Name });
    }
    const Type = f.Type as 'client' | 'management';
    if (existing) {
      const next = { ...existing, Name: f.Name, Type, Policies: f.Policies, Roles: roles };
      return tx.put(T.tokens, accessor, { ...next, Hash: tokenHash(next) });
    }
    const made = makeToken({ Name: f.Name, Type, Policies: f.Policies, Roles: roles, Global: input.Global ?? false, ttlNs: input.ttlNs }, nowMs);
    // An explicit ExpirationTime wins over CreateTime + TTL (reference ACLToken.Canonicalize).
    const token = input.expirationMs === undefined ? made : { ...made, ExpirationTime: formatTime(new Date(input.expirationMs)) };
    return tx.put(T.tokens, token.AccessorID, { ...token, Hash: tokenHash(token) });
  });
  return writeReply(index, renderToken(withLiveRoles(ctx.deps.state, result), true));
}

/** The query parameters of the token list. */
const LIST_QUERY: ApiQuery = { ...PREFIX_QUERY, global: Type.Boolean({ description: 'Only global tokens.' }) };

/**
 * `GET /v1/acl/tokens`: stubs of the tokens whose accessor starts with `?prefix=` (compared
 * as hex digits, hyphens ignored, as go-memdb's `UUIDFieldIndex`), only global ones with
 * `?global=true`. @throws 400 `index error: …` for a bad prefix.
 */
async function list(ctx: Ctx): Promise<SchedReply> {
  const state = ctx.deps.state;
  const prefix = queryUuidPrefix(ctx).replaceAll('-', '');
  const globalOnly = parseGoBool(ctx.query.get('global') ?? '') === true;
  let tokens = state.list<TokenDoc>(T.tokens).filter((t) => t.AccessorID.replaceAll('-', '').toLowerCase().startsWith(prefix) && (!globalOnly || t.Global));
  // Without a filter the reference lists by create index, else by accessor.
  if (prefix === '' && !globalOnly) tokens = tokens.sort((a, b) => a.CreateIndex - b.CreateIndex || (a.AccessorID < b.AccessorID ? -1 : 1));
  return { body: tokens.map((t) => tokenStub(withLiveRoles(state, t))), index: state.tableIndex(T.tokens) };
}

/** `GET /v1/acl/token/self`: the caller's own token with its secret. @throws 403 `ACL token not found` (no or unknown secret). */
async function self(ctx: Ctx): Promise<SchedReply> {
  const t = ctx.secret === undefined ? undefined : ctx.deps.acl.lookup(ctx.secret);
  if (!t) throw new CairnError('forbidden', TOKEN_NOT_FOUND);
  return { body: renderToken(withLiveRoles(ctx.deps.state, t), true), index: t.ModifyIndex };
}

/** `GET /v1/acl/token/:accessor` with its secret (its route admits management and the token itself). @throws 404 `ACL token not found`. */
async function read(ctx: Ctx): Promise<SchedReply> {
  const t = ctx.deps.state.get<TokenDoc>(T.tokens, ctx.params.accessor!);
  if (!t) throw schedNotFound(TOKEN_NOT_FOUND);
  return { body: renderToken(withLiveRoles(ctx.deps.state, t), true), index: t.ModifyIndex };
}

/** Deletes token `:accessor`. @throws 400 `Cannot delete nonexistent tokens: <id>` (reference `DeleteTokens`). */
async function remove(ctx: Ctx): Promise<SchedReply> {
  const id = ctx.params.accessor!;
  const { index } = await ctx.deps.state.txn((tx) => {
    if (!tx.delete(T.tokens, id)) throw schedBadRequest(`Cannot delete nonexistent tokens: ${id}`);
  });
  return writeReply(index);
}

/** Routes of this file (module doc). */
export const aclTokenRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/bootstrap',
    synopsis: 'Bootstrap the ACL system: the first management token',
    // Anyone, once: the bootstrap state decides (no token exists yet).
    methods: {
      POST: { access: { acl: 'enabled' }, forward: 'primary', handle: bootstrap },
      PUT: { access: { acl: 'enabled' }, forward: 'primary', handle: bootstrap },
    },
  },
  {
    pattern: 'acl/tokens',
    synopsis: 'List ACL tokens (stubs)',
    blocking: [T.tokens],
    methods: { GET: { access: ACL_MANAGEMENT, query: LIST_QUERY, handle: list } },
  },
  {
    pattern: 'acl/token',
    synopsis: 'Create an ACL token',
    methods: {
      POST: { access: ACL_MANAGEMENT, forward: upsertForward(false), body: TokenBody, handle: (ctx) => upsert(ctx, undefined) },
      PUT: { access: ACL_MANAGEMENT, forward: upsertForward(false), body: TokenBody, handle: (ctx) => upsert(ctx, undefined) },
    },
  },
  // The secret is the access: the handler looks it up (403 `ACL token not found` without one).
  { pattern: 'acl/token/self', synopsis: "Read the request's own token", blocking: [T.tokens], methods: { GET: { access: { acl: 'enabled' }, handle: self } } },
  {
    pattern: 'acl/token/:accessor',
    synopsis: 'Read, update or delete an ACL token',
    blocking: [T.tokens],
    methods: {
      GET: {
        // Management, or the token itself (its own secret); anyone else 403, whether it exists or not.
        access: (ctx) => ({
          acl: 'management',
          orIf: () => ctx.secret !== undefined && ctx.deps.state.get<TokenDoc>(T.tokens, ctx.params.accessor!)?.SecretID === ctx.secret,
        }),
        handle: read,
      },
      POST: { access: ACL_MANAGEMENT, forward: upsertForward(true), body: TokenBody, handle: (ctx) => upsert(ctx, ctx.params.accessor) },
      PUT: { access: ACL_MANAGEMENT, forward: upsertForward(true), body: TokenBody, handle: (ctx) => upsert(ctx, ctx.params.accessor) },
      DELETE: { access: ACL_MANAGEMENT, forward: removeForward, handle: remove },
    },
  },
];
