/**
 * Login endpoints of the scheduler (reference/sched.md §2.5), none needing a token:
 *
 * - `POST|PUT /v1/acl/login` `{AuthMethodName, LoginToken}`: a `JWT` method's bearer token
 *   → an ACL token;
 * - `POST|PUT /v1/acl/oidc/auth-url` `{AuthMethodName, RedirectURI, ClientNonce}` →
 *   `{"AuthURL": "…"}` of an `OIDC` method's provider;
 * - `POST|PUT /v1/acl/oidc/complete-auth` `{AuthMethodName, ClientNonce, State, Code,
 *   RedirectURI}` → an ACL token.
 *
 * The proven claims go through the method's `ClaimMappings` / `ListClaimMappings` and its
 * binding rules (roles and policies by existing name, or management; kernel `bindIdentity`).
 * The token: `Name` from `TokenNameFormat`, `Global` when `TokenLocality` is `global`,
 * `ExpirationTTL` = `MaxTokenTTL`. All three endpoints of a `global` method in a
 * non-authoritative region are forwarded to the authoritative region, as the reference
 * does, so the OIDC state made by auth-url is where complete-auth goes. Validators and OIDC
 * flows are built once per method version (building one reaches the JWKS or discovery URL);
 * pending OIDC logins live in memory on the server that made the auth URL.
 *
 * @module
 */
import {
  AuthnBuilds,
  AuthnError,
  bindIdentity,
  createJwtValidator,
  createOidcFlow,
  identityFromClaims,
  interpolateBindName,
  SCHED_BIND_PROFILE,
  type AuthMethodConfig,
  type Claims,
  type Identity,
  type JwtValidator,
  type OidcFlow,
} from '../../../kernel/authn/index.js';
import type { TObject } from '@sinclair/typebox';
import { CairnError } from '../../../kernel/http/index.js';
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { kernelConfigs } from '../auth/auth-config.js';
import type { AuthMethod } from '../auth/auth-method.js';
import type { BindingRule } from '../auth/binding-rule.js';
import { invalidRequest, multiError } from '../auth/errors.js';
import { requireAclSupport, type SchedAccess, type SchedRoute } from '../access.js';
import type { Ctx, SchedDeps } from '../deps.js';
import { schedInternal, writeReply, type SchedReply } from '../http.js';
import { requireInput } from '../request.js';
import { nullAsEmpty } from '../body.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { T, type PolicyDoc, type RoleDoc, type TokenDoc } from '../state.js';
import { makeToken, renderToken } from '../token.js';

/** The reference's text when the rules grant nothing (400, sched.md §2.5). */
const NO_BINDINGS = 'no role or policy bindings matched';

/**
 * A request body's Go struct (its route's declared body: `null` reads as `{}`, as Go's) and
 * what each empty required field is called in the multierror.
 */
interface RequestSpec {
  readonly schema: TObject;
  /** Field → the reference's `missing …` text, in the reference's order. */
  readonly required: readonly (readonly [string, string])[];
  /** Prefix of the 400, e.g. `invalid login request`. */
  readonly invalid: string;
}

const LOGIN: RequestSpec = {
  schema: nullAsEmpty(Go.struct('ACLLoginRequest', { AuthMethodName: Go.string(), LoginToken: Go.string('the JWT') }, { typePrefix: 'structs.' })),
  required: [
    ['AuthMethodName', 'missing auth method name'],
    ['LoginToken', 'missing login token'],
  ],
  invalid: 'invalid login request',
};
const AUTH_URL: RequestSpec = {
  schema: nullAsEmpty(
    Go.struct('ACLOIDCAuthURLRequest', { AuthMethodName: Go.string(), RedirectURI: Go.string(), ClientNonce: Go.string() }, { typePrefix: 'structs.' }),
  ),
  required: [
    ['AuthMethodName', 'missing auth method name'],
    ['ClientNonce', 'missing client nonce'],
    ['RedirectURI', 'missing redirect URI'],
  ],
  invalid: 'invalid OIDC auth-url request',
};
const COMPLETE: RequestSpec = {
  schema: nullAsEmpty(
    Go.struct(
      'ACLOIDCCompleteAuthRequest',
      { AuthMethodName: Go.string(), ClientNonce: Go.string(), State: Go.string(), Code: Go.string(), RedirectURI: Go.string() },
      { typePrefix: 'structs.' },
    ),
  ),
  required: [
    ['AuthMethodName', 'missing auth method name'],
    ['ClientNonce', 'missing client nonce'],
    ['State', 'missing state'],
    ['Code', 'missing code'],
    ['RedirectURI', 'missing redirect URI'],
  ],
  invalid: 'invalid OIDC complete-auth request',
};

type Method = AuthMethod & Indexed;

/** A login request: its decoded body and the method it names. */
interface LoginRequest {
  readonly input: Record<string, string>;
  readonly method: Method;
}

/** Each request's {@link LoginRequest}, found once by its route's forward function for the handler. */
const loginRequests = new WeakMap<Ctx, LoginRequest>();

/**
 * The request of one of the three endpoints (reference/sched.md §2.5, nomad `ACL.Login`):
 * the declared body (decoded by the kernel) complete, and the method it names; found once
 * per request. @throws 400 `Request body is empty`, `<prefix>: <multierror of missing
 * fields>`, `auth-method "<n>" not found`.
 */
function loginRequest(ctx: Ctx, spec: RequestSpec): LoginRequest {
  const known = loginRequests.get(ctx);
  if (known) return known;
  const input = requireInput(ctx.input<Record<string, string>>());
  const missing = spec.required.filter(([field]) => input[field] === '').map(([, text]) => text);
  if (missing.length > 0) throw invalidRequest(`${spec.invalid}: ${multiError(missing)}`);
  const method = ctx.deps.state.get<AuthMethod>(T.authMethods, input.AuthMethodName);
  if (!method) throw invalidRequest(`auth-method ${JSON.stringify(input.AuthMethodName)} not found`);
  const request = { input, method };
  loginRequests.set(ctx, request);
  return request;
}

/**
 * Where a login runs: a `global` method's in the authoritative region (its tokens are made
 * there), a local one's here; 400 `ACL support disabled` and the request's 400s first, as in
 * the reference. @throws as {@link loginRequest}.
 */
function loginForward(spec: RequestSpec): (ctx: Ctx) => 'primary' | undefined {
  return (ctx) => {
    requireAclSupport(ctx);
    return loginRequest(ctx, spec).method.TokenLocality === 'global' ? 'primary' : undefined;
  };
}

/** {@link loginRequest}, and the method must be of `type`. @throws as it; 400 `unsupported auth-method type: <T>`. */
function begin(ctx: Ctx, spec: RequestSpec, type: 'JWT' | 'OIDC'): LoginRequest {
  const r = loginRequest(ctx, spec);
  if (r.method.Type !== type) throw invalidRequest(`unsupported auth-method type: ${r.method.Type}`);
  return r;
}

/**
 * `POST /v1/acl/login` (reference/sched.md §2.5). @throws as {@link begin}; 401 `unable to
 * validate provided token: <why>` (also when the keys cannot be fetched); as {@link issueToken}.
 */
async function login(ctx: Ctx): Promise<SchedReply> {
  const { input, method } = begin(ctx, LOGIN, 'JWT');
  let claims: Claims;
  try {
    claims = await (await authenticatorsOf(ctx.deps).jwt(method)).validate(input.LoginToken);
  } catch (err) {
    if (err instanceof AuthnError) throw new CairnError('unauthenticated', `unable to validate provided token: ${err.message}`);
    throw err;
  }
  return issueToken(ctx, method, claims);
}

/**
 * `POST /v1/acl/oidc/auth-url` → `{AuthURL}` (no index header, as the reference).
 * @throws as {@link begin}; 400 `failed to generate auth URL: unauthorized redirect_uri: <uri>`
 *   (the reference: 500); 500 `failed to generate OIDC provider: <why>`.
 */
async function authUrl(ctx: Ctx): Promise<SchedReply> {
  const { input, method } = begin(ctx, AUTH_URL, 'OIDC');
  const flow = await authenticatorsOf(ctx.deps).oidc(method);
  try {
    return { body: { AuthURL: await flow.authUrl({ redirectUri: input.RedirectURI, clientNonce: input.ClientNonce, payload: undefined }) } };
  } catch (err) {
    if (err instanceof AuthnError) throw invalidRequest(`failed to generate auth URL: ${err.message}`);
    throw err;
  }
}

/**
 * `POST /v1/acl/oidc/complete-auth` → the new token. The state is single use and must have
 * been made by this server's auth-url (for a `global` method: the authoritative region's).
 * @throws as {@link begin}; 400 `failed to exchange token with provider: <why>` for an
 *   unknown, expired or replayed state, a client nonce that differs from auth-url's, an ID
 *   token that does not verify; 500 with that prefix when the provider refuses or cannot be
 *   reached; as {@link issueToken}.
 */
async function completeAuth(ctx: Ctx): Promise<SchedReply> {
  const { input, method } = begin(ctx, COMPLETE, 'OIDC');
  const flow = await authenticatorsOf(ctx.deps).oidc(method);
  let claims: Claims;
  try {
    claims = (await flow.callback({ state: input.State, code: input.Code, clientNonce: input.ClientNonce })).claims;
  } catch (err) {
    if (!(err instanceof AuthnError)) throw err;
    const text = `failed to exchange token with provider: ${err.message}`;
    throw err.kind === 'oidc_exchange' ? schedInternal(text) : invalidRequest(text);
  }
  return issueToken(ctx, method, claims);
}

/**
 * Claims → identity → bindings → a stored token (reference/sched.md §2.4–§2.5): management
 * when a `management` rule matches (roles and policies then dropped, as the reference);
 * else a client token with the bound policies (names) and roles (`{ID, Name}`). Bound roles
 * and policies are re-checked inside the write.
 * @throws 400 with the kernel's text when a claim cannot be mapped (the reference: 500);
 *   400 `no role or policy bindings matched`; 500 when a rule's bind name or the method's
 *   `TokenNameFormat` does not interpolate.
 */
async function issueToken(ctx: Ctx, method: Method, claims: Claims): Promise<SchedReply> {
  const { state } = ctx.deps;
  let identity: Identity;
  try {
    identity = identityFromClaims(claims, method.Config?.ClaimMappings ?? {}, method.Config?.ListClaimMappings ?? {});
  } catch (err) {
    if (err instanceof AuthnError) throw invalidRequest(err.message);
    throw err;
  }
  const rules = state
    .list<BindingRule>(T.bindingRules)
    .filter((r) => r.AuthMethod === method.Name)
    .map((r) => ({ selector: r.Selector, bindType: r.BindType, bindName: r.BindName }));
  let bindings;
  let name: string;
  try {
    bindings = await bindIdentity(rules, identity, {
      profile: SCHED_BIND_PROFILE,
      roleByName: (n) => {
        const role = state.getBy<RoleDoc>(T.roles, 'name', n);
        return role && { id: role.ID, name: role.Name };
      },
      policyByName: (n) => (state.get<PolicyDoc>(T.policies, n) ? { id: n, name: n } : undefined),
    });
    const vars = { ...identity.projected, auth_method_type: method.Type, auth_method_name: method.Name };
    name = interpolateBindName(method.TokenNameFormat, vars, false);
  } catch (err) {
    if (err instanceof AuthnError) throw schedInternal(err.message);
    throw err;
  }
  const management = bindings.management;
  const { result, index } = await state.txn((tx) => {
    const roles = management ? [] : bindings.roles.filter((r) => tx.get(T.roles, r.id)).map((r) => ({ ID: r.id, Name: r.name }));
    const policies = management ? [] : bindings.policies.filter((p) => tx.get(T.policies, p.id)).map((p) => p.name);
    if (!management && roles.length === 0 && policies.length === 0) throw invalidRequest(NO_BINDINGS);
    const token = makeToken(
      {
        Name: name,
        Type: management ? 'management' : 'client',
        Policies: policies,
        Roles: roles,
        Global: method.TokenLocality === 'global',
        ttlNs: method.MaxTokenTTL,
      },
      ctx.deps.now(),
    );
    return tx.put<TokenDoc>(T.tokens, token.AccessorID, token);
  });
  return writeReply(index, renderToken(result, true));
}

/**
 * The kernel config a `JWT` method validates with: of the key sources set, static keys win,
 * then the JWKS URL, then discovery (the reference's `jwt.Validate` order).
 */
function jwtConfigOf(method: Method): AuthMethodConfig {
  const configs = method.Config ? kernelConfigs('JWT', method.Config) : [];
  const pick = configs.find((c) => c.jwtValidationPubKeys) ?? configs.find((c) => c.jwksUrl) ?? configs[0];
  if (!pick) throw new AuthnError('config', 'JWT auth method requires either OIDCDiscoveryURL, or JWKS URL, or JWTValidationPubKeys set');
  return pick;
}

/** One agent's JWT validators and OIDC flows, one per method version; a failed build is not kept. */
class Authenticators {
  private readonly jwts = new AuthnBuilds<JwtValidator>();
  private readonly flows = new AuthnBuilds<OidcFlow<undefined>>();

  constructor(private readonly now: () => number) {}

  /** The validator of a `JWT` method. @throws {AuthnError} when it cannot be built. */
  jwt(method: Method): Promise<JwtValidator> {
    // async builders: a config that cannot be read rejects, as a provider that cannot be reached does.
    return this.jwts.get(method.Name, method.ModifyIndex, async () => createJwtValidator(jwtConfigOf(method), { now: this.now }));
  }

  /** The flow of an `OIDC` method. @throws 500 `failed to generate OIDC provider: <why>`. */
  async oidc(method: Method): Promise<OidcFlow<undefined>> {
    try {
      return await this.flows.get(method.Name, method.ModifyIndex, async () =>
        createOidcFlow<undefined>(kernelConfigs('OIDC', method.Config!)[0], { now: this.now }),
      );
    } catch (err) {
      if (err instanceof AuthnError) throw schedInternal(`failed to generate OIDC provider: ${err.message}`);
      throw err;
    }
  }
}

// Keyed by the agent's state, so no shared wiring has to carry them: one set per agent, gone with it.
const perAgent = new WeakMap<StateStore, Authenticators>();

function authenticatorsOf(deps: SchedDeps): Authenticators {
  let a = perAgent.get(deps.state);
  if (!a) perAgent.set(deps.state, (a = new Authenticators(deps.now)));
  return a;
}

/** Who may log in: anyone (with ACLs on); the login token or the OIDC code is the credential. */
const ANYONE: SchedAccess = { acl: 'enabled' };

/**
 * Routes of this file (reference/sched.md §2.5). Token replies are the reference's ACLToken
 * (`renderToken` with its SecretID) with `X-Sched-Index`.
 */
export const loginRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/login',
    synopsis: "Exchange a JWT auth method's token for an ACL token",
    methods: {
      POST: { access: ANYONE, forward: loginForward(LOGIN), body: LOGIN.schema, handle: login },
      PUT: { access: ANYONE, forward: loginForward(LOGIN), body: LOGIN.schema, handle: login },
    },
  },
  {
    pattern: 'acl/oidc/auth-url',
    synopsis: 'Start an OIDC login: the provider authorization URL',
    methods: {
      POST: { access: ANYONE, forward: loginForward(AUTH_URL), body: AUTH_URL.schema, handle: authUrl },
      PUT: { access: ANYONE, forward: loginForward(AUTH_URL), body: AUTH_URL.schema, handle: authUrl },
    },
  },
  {
    pattern: 'acl/oidc/complete-auth',
    synopsis: 'Complete an OIDC login: exchange the code for an ACL token',
    methods: {
      POST: { access: ANYONE, forward: loginForward(COMPLETE), body: COMPLETE.schema, handle: completeAuth },
      PUT: { access: ANYONE, forward: loginForward(COMPLETE), body: COMPLETE.schema, handle: completeAuth },
    },
  },
];
