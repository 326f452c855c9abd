/**
 * The scheduler's ACL auth method (reference/sched.md §2.2–§2.3, spec 002 "ACL auth
 * method"): its stored shape, request decoding with Nomad's case-insensitive field names,
 * the upsert's merge / canonicalize / validate steps with the reference's texts and order,
 * and the read and list shapes. Pure: the caller supplies the stored methods and the
 * clock, and stores the result (assigning `CreateIndex` / `ModifyIndex`).
 *
 * @module
 */
import { canonicalConfig, configErrors, ConfigBody, keepStoredSecrets, renderConfig, type AuthMethodWireConfig } from './auth-config.js';
import { decodeStruct } from './decode.js';
import { Go, goStructOf } from '../../../kernel/util/go-schema.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { formatGoDuration } from '../../../kernel/util/go-duration.js';
import { HOUR_NS, MINUTE_NS, wireDuration } from './duration.js';
import { AUTH_METHOD_NOT_FOUND, invalidRequest, multiError, notFoundError } from './errors.js';
import { contentHash } from './stamp.js';

/** Auth-method types, case-sensitive (sched.md §2.3). */
const AUTH_METHOD_TYPES = ['OIDC', 'JWT'] as const;
/** Token localities (sched.md §2.3): tokens of `global` methods replicate to every region. */
const TOKEN_LOCALITIES = ['local', 'global'] as const;
/** `TokenNameFormat` when none is given (sched.md §2.2, spec 002). */
const DEFAULT_TOKEN_NAME_FORMAT = '${auth_method_type}-${auth_method_name}';
/** Valid names: alphanumerics and dashes, 1–128 characters (sched.md §2.3). */
const NAME_PATTERN = /^[a-zA-Z0-9-]{1,128}$/;
/** Default `MaxTokenTTL` bounds, nanoseconds: the reference's `ACLTokenMin/MaxExpirationTTL` (1m, 24h). */
export const DEFAULT_TTL_BOUNDS = { min: MINUTE_NS, max: 24 * HOUR_NS } as const;

/** What a request body decodes to: every field present, Go zero values for absent ones. */
export interface AuthMethodInput {
  readonly Name: string;
  readonly Type: string;
  readonly TokenLocality: string;
  readonly TokenNameFormat: string;
  /** Nanoseconds; 0 when absent or `""`. */
  readonly MaxTokenTTL: number;
  readonly Default: boolean;
  readonly Config: AuthMethodWireConfig | null;
}

/** A stored auth method (sched.md §2.2); secrets are held in clear and redacted only by {@link renderAuthMethod}. */
export interface AuthMethod extends AuthMethodInput {
  /** base64 of a blake2b-256 digest of the fields a write sets (see {@link hashAuthMethod}). */
  readonly Hash: string;
  /** RFC3339 UTC, set on the first write. */
  readonly CreateTime: string;
  /** RFC3339 UTC, set on every write. */
  readonly ModifyTime: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The list item of `GET /v1/acl/auth-methods` (sched.md §2.2; spec 002 names all but `Hash`). */
export interface AuthMethodStub {
  readonly Name: string;
  readonly Type: string;
  readonly Default: boolean;
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/**
 * The body of an auth-method write (the reference's `structs.ACLAuthMethod`), declared by its
 * routes (routes/auth-methods.ts); server-set fields are not decoded (the store sets them).
 * Its routes read `null` as `{}`, as Go's decoder does.
 */
export const AuthMethodBody = Go.struct(
  'ACLAuthMethod',
  {
    Name: Go.string(),
    Type: Go.string('OIDC or JWT'),
    TokenLocality: Go.string('local or global'),
    TokenNameFormat: Go.string(),
    MaxTokenTTL: Go.duration(),
    Default: Go.bool(),
    Config: ConfigBody,
  },
  { typePrefix: 'structs.' },
);

/**
 * Decodes a request body as the kernel decodes {@link AuthMethodBody} for its routes
 * (sched.md §1.1): field names of the method, its `Config` and nested structs match
 * case-insensitively (`Tokenlocality`, `maxtokenttl`), unknown fields are ignored,
 * `MaxTokenTTL` and the leeways take a Go duration string or nanoseconds.
 * @throws {SchedAuthError} 400 with the Go decoder's text, e.g.
 *   `json: cannot unmarshal number into Go struct field ACLAuthMethod.Name of type string`.
 */
export function decodeAuthMethod(body: unknown): AuthMethodInput {
  return decodeStruct(body, goStructOf(AuthMethodBody)) as unknown as AuthMethodInput;
}

/** Options of {@link validateAuthMethod}. */
export interface ValidateAuthMethodOptions {
  /** The stored method of the same name, if any: the request is merged onto it. */
  readonly existing?: AuthMethod;
  /** Every stored method (the one of the same name may be among them), for the one-`Default` rule. */
  readonly others: readonly AuthMethod[];
  /** True for `POST /v1/acl/auth-method/:name`: the method must exist and `Type` may only become `OIDC`. */
  readonly isUpdate: boolean;
  readonly now: Date;
  /** Position in the upsert request, for the `auth method <i> invalid` text; 0 for the HTTP API's single method. */
  readonly index?: number;
  /** `MaxTokenTTL` bounds in nanoseconds; {@link DEFAULT_TTL_BOUNDS} when absent. */
  readonly ttlBounds?: { readonly min: number; readonly max: number };
}

/**
 * The upsert of sched.md §2.3 step 5 for one method: merge with `existing`, canonicalize,
 * validate, check the single `Default`, hash. Returns the method to store, with
 * `CreateIndex` / `ModifyIndex` carried from `existing` (0 when new) for the store to set.
 *
 * Merge: `Type`, `TokenLocality`, `TokenNameFormat`, `Config` (and `MaxTokenTTL` on a
 * create) keep the request value when non-zero, else the stored one; `Config` is replaced
 * whole; `Default` is not merged; a `redacted` secret keeps the stored one
 * (reference/README.md rule 3). An update never merges `MaxTokenTTL`: spec 002 makes it
 * required there, so an update without it fails the TTL rule below (`'0s'`).
 *
 * Validation, every error collected in this order: `invalid name '<n>'`, `invalid token
 * locality '<v>'`, `invalid token type '<v>'` (on update, a stored `OIDC` method also
 * refuses `JWT`: `cannot change auth method type from 'OIDC' to 'JWT': update accepts only
 * OIDC`), `invalid config: …` ({@link configErrors}), `invalid MaxTokenTTL value '<d>'
 * (should be between 1m0s and 24h0m0s)`.
 *
 * @throws {SchedAuthError} 404 `ACL auth-method not found` on update of a missing method;
 *   400 `auth method <i> invalid: <go-multierror text>`; 400 `default method already exists: <name>`.
 */
export function validateAuthMethod(input: AuthMethodInput, opts: ValidateAuthMethodOptions): AuthMethod {
  const old = opts.existing;
  // Spec 002: an update needs the method to exist (the reference would create it).
  if (opts.isUpdate && !old) throw notFoundError(AUTH_METHOD_NOT_FOUND);
  const pick = <T>(v: T, stored: T | undefined, zero: T) => (v !== zero || stored === undefined ? v : stored);
  const config = input.Config ? keepStoredSecrets(input.Config, old?.Config ?? null) : (old?.Config ?? null);
  const now = formatTime(opts.now);
  const m = {
    Name: input.Name,
    Type: pick(input.Type, old?.Type, ''),
    TokenLocality: pick(input.TokenLocality, old?.TokenLocality, ''),
    TokenNameFormat: pick(input.TokenNameFormat, old?.TokenNameFormat, '') || DEFAULT_TOKEN_NAME_FORMAT,
    // Spec 002 "Update: … `Name`, `MaxTokenTTL` required": the reference would keep the stored value.
    MaxTokenTTL: opts.isUpdate ? input.MaxTokenTTL : pick(input.MaxTokenTTL, old?.MaxTokenTTL, 0),
    Default: input.Default,
    Config: config && canonicalConfig(config),
  };

  const errors: string[] = [];
  if (!NAME_PATTERN.test(m.Name)) errors.push(`invalid name '${m.Name}'`);
  if (!(TOKEN_LOCALITIES as readonly string[]).includes(m.TokenLocality)) errors.push(`invalid token locality '${m.TokenLocality}'`);
  if (!(AUTH_METHOD_TYPES as readonly string[]).includes(m.Type)) errors.push(`invalid token type '${m.Type}'`);
  else if (opts.isUpdate && m.Type !== 'OIDC' && m.Type !== old?.Type) {
    // Spec 002 "update accepts only OIDC"; a JWT method keeps its type so it stays updatable.
    errors.push(`cannot change auth method type from '${old?.Type}' to '${m.Type}': update accepts only OIDC`);
  }
  if (!m.Config) errors.push('invalid config: missing auth method Config');
  else {
    const ce = configErrors(m.Type, m.Config);
    if (ce.length === 1) errors.push(`invalid config: ${ce[0]}`);
    else if (ce.length > 1) errors.push(`invalid config: ${multiError(ce)}`);
  }
  const ttl = opts.ttlBounds ?? DEFAULT_TTL_BOUNDS;
  if (m.MaxTokenTTL < ttl.min || m.MaxTokenTTL > ttl.max) {
    errors.push(
      `invalid MaxTokenTTL value '${formatGoDuration(m.MaxTokenTTL)}' ` + `(should be between ${formatGoDuration(ttl.min)} and ${formatGoDuration(ttl.max)})`,
    );
  }
  if (errors.length > 0) throw invalidRequest(`auth method ${opts.index ?? 0} invalid: ${multiError(errors)}`);

  const otherDefault = m.Default ? opts.others.find((o) => o.Default && o.Name !== m.Name) : undefined;
  if (otherDefault) throw invalidRequest(`default method already exists: ${otherDefault.Name}`);

  const stored = {
    ...m,
    CreateTime: old?.CreateTime ?? now,
    ModifyTime: now,
    CreateIndex: old?.CreateIndex ?? 0,
    ModifyIndex: old?.ModifyIndex ?? 0,
  };
  return { ...stored, Hash: hashAuthMethod(stored) };
}

/**
 * The `Hash` of a method: {@link contentHash} of the fields a write sets (Name, Type,
 * TokenLocality, MaxTokenTTL, TokenNameFormat, Default, Config with its secrets), the
 * reference's `SetHash` inputs (sched.md §2.3).
 */
function hashAuthMethod(m: AuthMethodInput): string {
  return contentHash([m.Name, m.Type, m.TokenLocality, m.MaxTokenTTL, m.TokenNameFormat, m.Default, m.Config]);
}

/**
 * The JSON read shape (GET, upsert reply, events; sched.md §2.2): `MaxTokenTTL` first as a
 * Go duration string (`""` for 0), secrets `redacted`, unset lists and maps `null`
 * (`DiscoveryCaPem`, `SigningAlgs`, … as spec 002 says).
 */
export function renderAuthMethod(m: AuthMethod): Record<string, unknown> {
  return {
    MaxTokenTTL: wireDuration(m.MaxTokenTTL),
    Name: m.Name,
    Type: m.Type,
    TokenLocality: m.TokenLocality,
    TokenNameFormat: m.TokenNameFormat,
    Default: m.Default,
    Config: m.Config && renderConfig(m.Config),
    Hash: m.Hash,
    CreateTime: m.CreateTime,
    ModifyTime: m.ModifyTime,
    CreateIndex: m.CreateIndex,
    ModifyIndex: m.ModifyIndex,
  };
}

/** The list item of a method (sched.md §2.2 "List stub"). */
export function authMethodStub(m: AuthMethod): AuthMethodStub {
  return { Name: m.Name, Type: m.Type, Default: m.Default, Hash: m.Hash, CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex };
}
