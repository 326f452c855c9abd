/**
 * Auth-method endpoints (reference/mesh.md §4.1–§4.2): `PUT /acl/auth-method`,
 * `GET|PUT|DELETE /acl/auth-method/:name`, `GET /acl/auth-methods` (stubs without
 * Config). Writes need `acl:write`, reads `acl:read`. Both PUTs upsert, as the reference
 * does; `Type` cannot change. `Config` is checked with the authentication kernel, and a
 * `jwt`/`oidc` method's JWKS or discovery URL must answer at write time. Deleting a
 * method deletes its binding rules and the tokens it created (the reference's
 * `ACLAuthMethodDelete`). Validation failures are 400 with the reference's texts (the
 * reference answers 500; reference/README.md rule 3). `oidc` needs the enterprise switch.
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { AUTH_METHOD_TYPES, checkAuthMethodConfig, type AuthMethodType, type WireConfig } from '../auth-config.js';
import { formatGoDuration, jsonGoDurationNs } from '../../../kernel/util/go-duration.js';
import type { AuthMethodDoc, BindingRuleDoc } from '../auth-docs.js';
import { checkReachable } from '../authenticators.js';
import { aclRule, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshBody } from '../body-decoding.js';
import { meshBadRequest, type MeshReply } from '../http.js';
import { inScope, notFoundIn, scopeOf, shownNamespace } from '../ns-scope.js';
import { authMethodKey, nsField, nsOf, T, type TokenDoc } from '../state.js';
import { MIN_TOKEN_TTL_MS } from '../token-write.js';

const NAME = /^[A-Za-z0-9\-_]{1,128}$/;

/** The fields of an auth-method body (reference/mesh.md §4.1) but its `Name`. */
const AUTH_METHOD_FIELDS = {
  Type: Go.string('jwt, kubernetes or (enterprise) oidc; immutable'),
  DisplayName: Go.string(),
  Description: Go.string(),
  // A Go duration string or nanoseconds, with its own texts (`Invalid Auth Method: MaxTokenTTL …`).
  MaxTokenTTL: Go.any('a Go duration ("10m") or nanoseconds; at least 1m'),
  TokenLocality: Go.string('local or global'),
  // Checked by the authentication kernel with its texts (`Invalid Auth Method: Config…`).
  Config: Go.any("the method type's configuration (an object)"),
  Namespace: Go.any('enterprise: the namespace (a string)'),
};

/** The body of `PUT /acl/auth-method`. */
const AuthMethodBody = meshBody('AuthMethod', { Name: Go.string(), ...AUTH_METHOD_FIELDS });

/** The body of `PUT /acl/auth-method/:name`: `Name`, when given, must be the URL's (its own text). */
const AuthMethodUpdateBody = meshBody('AuthMethod', { Name: Go.any("empty, or the URL's name"), ...AUTH_METHOD_FIELDS });

type AuthMethodInput = Static<typeof AuthMethodBody>;

/**
 * An auth method as the API shows it; `withConfig: false` gives the list stub. Empty
 * optional fields are omitted; `Namespace` is shown with the enterprise switch.
 */
function renderAuthMethod(m: AuthMethodDoc & Indexed, enterprise: boolean | undefined, withConfig = true): Record<string, unknown> {
  return {
    Name: m.Name,
    Type: m.Type,
    ...(m.DisplayName !== '' && { DisplayName: m.DisplayName }),
    ...(m.Description !== '' && { Description: m.Description }),
    ...(m.MaxTokenTTL !== 0 && { MaxTokenTTL: formatGoDuration(m.MaxTokenTTL) }),
    ...(m.TokenLocality !== '' && { TokenLocality: m.TokenLocality }),
    ...(withConfig && { Config: m.Config }),
    CreateIndex: m.CreateIndex,
    ModifyIndex: m.ModifyIndex,
    ...shownNamespace(enterprise, m),
  };
}

/** `MaxTokenTTL` in ns from a Go duration string or a number of ns. @throws 400 naming the value. */
function maxTokenTtlNs(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '' || raw === 0) return 0;
  const ns = typeof raw === 'number' || typeof raw === 'string' ? jsonGoDurationNs(raw) : undefined;
  if (typeof raw === 'number' && typeof ns === 'string') throw meshBadRequest(`Invalid Auth Method: MaxTokenTTL: ${ns}`);
  if (typeof ns !== 'number') throw meshBadRequest(`Invalid Auth Method: MaxTokenTTL '${String(raw)}' is not a duration`);
  const ms = ns / 1e6;
  if (ms < MIN_TOKEN_TTL_MS) throw meshBadRequest(`MaxTokenTTL ${formatGoDuration(ns)} cannot be less than ${formatGoDuration(MIN_TOKEN_TTL_MS * 1e6)}`);
  return ns;
}

/**
 * Checks `input` (for `existing` when updating) and returns the document to store; the
 * network check of the config is done here, outside the state transaction.
 * @throws 400 with the reference's texts.
 */
async function prepare(ctx: Ctx, input: AuthMethodInput, existing: AuthMethodDoc | undefined, ns: string): Promise<AuthMethodDoc> {
  const { config: agent } = ctx.deps;
  const name = input.Name ?? '';
  if (name === '') throw meshBadRequest('Invalid Auth Method: no Name is set');
  if (!NAME.test(name)) throw meshBadRequest("Invalid Auth Method: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
  const rawType = input.Type ?? '';
  if (existing && rawType !== '' && rawType !== existing.Type) throw meshBadRequest('the Type field of an Auth Method is immutable');
  const type = (rawType || existing?.Type || '') as AuthMethodType;
  const types: readonly string[] = agent.enterprise ? AUTH_METHOD_TYPES : AUTH_METHOD_TYPES.filter((t) => t !== 'oidc');
  if (!types.includes(type)) throw meshBadRequest(`Invalid Auth Method: Type should be one of: [${types.join(' ')}]`);
  const locality = input.TokenLocality ?? '';
  if (locality !== '' && locality !== 'local' && locality !== 'global') {
    throw meshBadRequest("Invalid Auth Method: TokenLocality should be one of 'local' or 'global'");
  }
  if (locality === 'global' && agent.datacenter !== agent.primaryDatacenter) {
    throw meshBadRequest("Invalid Auth Method: TokenLocality 'global' can only be used in the primary datacenter");
  }
  const maxTtl = maxTokenTtlNs(input.MaxTokenTTL);
  checkAuthMethodConfig(type, input.Config);
  const config = (input.Config ?? {}) as WireConfig;
  await checkReachable(type, config, ctx.deps.now);
  return {
    ...nsField(ns),
    Name: name,
    Type: type,
    DisplayName: input.DisplayName ?? '',
    Description: input.Description ?? '',
    MaxTokenTTL: maxTtl,
    TokenLocality: locality,
    Config: config,
  };
}

/** Creates or updates auth method `input.Name` of namespace `ns`. */
async function upsert(ctx: Ctx, input: AuthMethodInput, ns: string): Promise<MeshReply> {
  const name = input.Name ?? '';
  const doc = await prepare(ctx, input, ctx.deps.state.get<AuthMethodDoc>(T.authMethods, authMethodKey(ns, name)), ns);
  const key = authMethodKey(ns, doc.Name);
  const { result } = await ctx.deps.state.txn((tx) => {
    // Re-checked inside the transaction: a concurrent write may have created it with another type.
    const now = tx.get<AuthMethodDoc>(T.authMethods, key);
    if (now && now.Type !== doc.Type) throw meshBadRequest('the Type field of an Auth Method is immutable');
    return tx.put<AuthMethodDoc>(T.authMethods, key, doc);
  });
  return { body: renderAuthMethod(result, ctx.deps.config.enterprise) };
}

/** The auth-method routes. */
export const authMethodRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/auth-method',
    synopsis: 'Create or update an auth method',
    methods: {
      PUT: withBody(AuthMethodBody, {
        bodyKind: 'AuthMethod',
        access: aclRule('write'),
        handle: async (ctx, body) => {
          const input = body ?? {};
          return upsert(ctx, input, scopeOf(ctx, ctx.caller, input.Namespace));
        },
      }),
    },
  },
  {
    pattern: 'acl/auth-method/:name',
    synopsis: 'Read, update or delete an auth method',
    blocking: [T.authMethods],
    methods: {
      GET: {
        access: aclRule('read'),
        handle: async (ctx) => {
          const ns = scopeOf(ctx, ctx.caller);
          const m = ctx.deps.state.get<AuthMethodDoc>(T.authMethods, authMethodKey(ns, ctx.params.name));
          if (!m) throw notFoundIn('auth method', ns);
          return { body: renderAuthMethod(m, ctx.deps.config.enterprise), index: ctx.deps.state.tableIndex(T.authMethods) };
        },
      },
      PUT: withBody(AuthMethodUpdateBody, {
        bodyKind: 'AuthMethod',
        access: aclRule('write'),
        handle: async (ctx, body) => {
          const input = body ?? {};
          if (input.Name !== undefined && input.Name !== '' && input.Name !== ctx.params.name) {
            throw meshBadRequest('AuthMethod Name in URL and payload do not match');
          }
          return upsert(ctx, { ...input, Name: ctx.params.name }, scopeOf(ctx, ctx.caller, input.Namespace));
        },
      }),
      DELETE: {
        access: aclRule('write'),
        handle: async (ctx) => {
          const ns = scopeOf(ctx, ctx.caller);
          const name = ctx.params.name;
          const mine = (d: { AuthMethod?: string; Namespace?: string }) => d.AuthMethod === name && nsOf(d) === ns;
          await ctx.deps.state.txn((tx) => {
            if (!tx.get(T.authMethods, authMethodKey(ns, name))) return;
            for (const r of tx.list<BindingRuleDoc>(T.bindingRules)) if (mine(r)) tx.delete(T.bindingRules, r.ID);
            for (const t of tx.list<TokenDoc>(T.tokens)) if (mine(t)) tx.delete(T.tokens, t.AccessorID);
            tx.delete(T.authMethods, authMethodKey(ns, name));
          });
          return { body: true };
        },
      },
    },
  },
  {
    pattern: 'acl/auth-methods',
    synopsis: 'List auth methods (stubs without Config)',
    blocking: [T.authMethods],
    methods: {
      GET: {
        access: aclRule('read'),
        handle: async (ctx) => {
          const scope = scopeOf(ctx, ctx.caller, undefined, true);
          const list = ctx.deps.state
            .list<AuthMethodDoc>(T.authMethods)
            .filter(inScope(scope))
            .map((m) => renderAuthMethod(m, ctx.deps.config.enterprise, false));
          return { body: list, index: ctx.deps.state.tableIndex(T.authMethods) };
        },
      },
    },
  },
];
