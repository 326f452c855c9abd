/**
 * The well-known documents of the scheduler's identity provider (reference/integration.md §4;
 * served at the root, not under `/v1/`, without ACL):
 *
 * ```text
 * GET /.well-known/jwks.json              {"keys":[{"use":"sig","kty":"RSA","kid","alg":"RS256","n","e"}, {"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x",…}, …]}
 * GET /.well-known/openid-configuration   {"issuer","jwks_uri","id_token_signing_alg_values_supported":["RS256","EdDSA"],
 *                                          "response_types_supported":["code"],"subject_types_supported":["public"]}
 * ```
 *
 * Servers answer the JWKS from their keyring (a blocking query on it with `?index=`); a
 * client-only agent answers with the copy it keeps of its servers' (client/jwks-mirror.ts), so
 * verifiers next to the workloads need not reach the servers. The discovery document exists
 * only when `server.oidc_issuer` is set (else 404 `OIDC Discovery endpoint disabled`).
 *
 * @module
 */
import { PUBLIC } from '../../../kernel/http/index.js';
import type { SchedRoute } from '../access.js';
import { atLeastOne, schedInternal, schedNotFound } from '../http.js';
import { SIGNING_ALGS } from '../keyring/root-key.js';
import { T } from '../state.js';

const JWKS = '.well-known/jwks.json';

/** The servers' well-known routes. */
export const wellKnownRoutes: readonly SchedRoute[] = [
  {
    pattern: JWKS,
    synopsis: 'The public keys that verify workload identities (JWKS)',
    root: true,
    blocking: [T.rootKeys],
    methods: {
      GET: {
        access: PUBLIC,
        handle: async (ctx) => {
          if (!ctx.deps.keyring) throw schedInternal('this agent keeps no keyring');
          return { body: ctx.deps.keyring.jwks(), index: ctx.deps.state.tableIndex(T.rootKeys) };
        },
      },
    },
  },
  {
    pattern: '.well-known/openid-configuration',
    synopsis: 'OIDC discovery document of the workload identity issuer (with server.oidc_issuer)',
    root: true,
    methods: {
      GET: {
        access: PUBLIC,
        handle: async (ctx) => {
          const issuer = ctx.deps.keyring?.issuer;
          if (issuer === undefined) throw schedNotFound('OIDC Discovery endpoint disabled');
          return {
            body: {
              id_token_signing_alg_values_supported: [...SIGNING_ALGS],
              issuer,
              jwks_uri: `${issuer.replace(/\/+$/, '')}/${JWKS}`,
              response_types_supported: ['code'],
              subject_types_supported: ['public'],
            },
          };
        },
      },
    },
  },
];

/** A client-only agent's JWKS: the copy of its servers' keys (client/jwks-mirror.ts). */
export const clientWellKnownRoutes: readonly SchedRoute[] = [
  {
    pattern: JWKS,
    synopsis: 'The public keys that verify workload identities (JWKS), as this client last fetched them from its servers',
    root: true,
    methods: {
      GET: {
        access: PUBLIC,
        handle: async (ctx) => {
          const copy = ctx.deps.jwksMirror?.current();
          if (!copy) throw schedInternal('no keys fetched from the servers yet');
          return { body: copy.jwks, index: atLeastOne(copy.index) };
        },
      },
    },
  },
];
