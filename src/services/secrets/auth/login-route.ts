/**
 * The one shape of every auth method's login route: an unauthenticated `update` that
 * finds the role (or user, or trusted entry) the request names, checks that the client
 * is inside its `token_bound_cidrs`, verifies the credential (the authentication
 * kernel's errors mapped to the reference's statuses by {@link rethrowAuthn}), and
 * issues the login token ({@link issueLoginToken}). Each method declares only its
 * fields and these steps.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import { forbidden } from '../../../kernel/http/index.js';
import { addressInCidrs } from '../../../kernel/util/cidr.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { rethrowAuthn } from './authn-errors.js';
import { issueLoginToken, type LoginTokenOptions } from './login.js';

/**
 * The steps of one login, run in this order by {@link loginHandler}. `F` is what
 * {@link find} found, `V` what {@link verify} proved.
 */
export interface LoginSteps<F, V = undefined> {
  /** Reads the request's fields and finds what it logs in against; throws the method's own 4xx errors. */
  find(req: SecretsRequest): Promise<F>;
  /**
   * CIDR blocks the client address must be inside when non-empty (checked right after
   * {@link find}; outside: 403 `permission denied`). Absent: the method checks none here.
   */
  boundCidrs?(found: F): readonly string[] | undefined;
  /**
   * Verifies the credential, usually with the authentication kernel. Its `AuthnError`s
   * become the reference's answers through {@link rethrowAuthn} with {@link tokenErrorPrefix};
   * any other error passes unchanged. Absent: {@link find} verified it already.
   */
  verify?(req: SecretsRequest, found: F): Promise<V>;
  /** Prefix of a kernel `token` error's 400 text; default `error validating token: `. */
  readonly tokenErrorPrefix?: string;
  /** The token to issue for the verified login; may throw the method's own 4xx errors. */
  token(req: SecretsRequest, found: F, verified: V): LoginTokenOptions | Promise<LoginTokenOptions>;
}

/** A login route: its help text and fields, and its {@link LoginSteps}. */
export interface LoginRouteSpec<F, V = undefined> extends LoginSteps<F, V> {
  /** Relative to the mount; default `login`. */
  readonly pattern?: string;
  readonly synopsis: string;
  readonly description: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly fields: Readonly<Record<string, TSchema>>;
  /** Fields the request must carry (400 naming the field when missing). */
  readonly required?: readonly string[];
}

/** The handler running `steps`: find, CIDR check, verify, issue the token; resolves with the `auth` block result. */
export function loginHandler<F, V>(steps: LoginSteps<F, V>): (req: SecretsRequest) => Promise<SecretsResult> {
  return async (req) => {
    const found = await steps.find(req);
    const cidrs = steps.boundCidrs?.(found);
    if (cidrs?.length && !addressInCidrs(req.remoteAddress, cidrs)) throw forbidden();
    let verified = undefined as V;
    if (steps.verify) {
      try {
        verified = await steps.verify(req, found);
      } catch (err) {
        rethrowAuthn(err, steps.tokenErrorPrefix);
      }
    }
    return issueLoginToken(req, await steps.token(req, found, verified));
  };
}

/** The unauthenticated path whose `update` (summary `Log in`) runs {@link loginHandler} of `spec`. */
export function loginRoute<F, V>(spec: LoginRouteSpec<F, V>): SecretsPath {
  return {
    pattern: spec.pattern ?? 'login',
    synopsis: spec.synopsis,
    description: spec.description,
    ...(spec.params ? { params: spec.params } : {}),
    fields: spec.fields,
    unauthenticated: true,
    operations: {
      update: {
        summary: 'Log in',
        ...(spec.required ? { required: spec.required } : {}),
        handle: loginHandler(spec),
      },
    },
  };
}
