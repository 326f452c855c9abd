/**
 * `config` of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt
 * `auth/<mount>/config`): a write replaces the config after checking it and reaching the
 * key source (JWKS URL or discovery document) once, as the reference does; a read never
 * shows `oidc_client_secret`.
 *
 * @module
 */
import { AuthnError } from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { CONFIG_FIELDS, configFromFields, configView, readConfig, writeConfig } from './config.js';
import { flowFor, validatorFor } from './engines.js';

const NO_ROLE = { boundAudiences: [], expirationLeeway: 0, notBeforeLeeway: 0, clockSkewLeeway: 0 };

const configPath: SecretsPath = {
  pattern: 'config',
  synopsis: 'Configure where JWT signing keys come from and the OIDC client of the browser flow',
  description:
    'Exactly one of `jwt_validation_pubkeys`, `jwks_url` or `oidc_discovery_url` must be set. `oidc_client_id` and `oidc_client_secret` enable the OIDC browser flow (`oidc/auth_url`, `oidc/callback`); the secret is never returned. A write replaces the whole config.',
  fields: CONFIG_FIELDS,
  operations: {
    update: {
      summary: 'Write the config',
      handle: async (req) => {
        const c = configFromFields(req.data);
        const now = () => req.core.now().getTime();
        try {
          await validatorFor(req.mount.uuid, c, NO_ROLE, now);
          if (c.oidc_client_id) await flowFor(req.mount.uuid, c, now, req.core.log);
        } catch (err) {
          if (!(err instanceof AuthnError)) throw err;
          const what = err.kind === 'unreachable' && c.jwks_url ? 'error checking jwks URL' : 'error checking oidc discovery URL';
          throw badRequest(err.kind === 'unreachable' ? `${what}: ${err.message.replace(/^error checking \w+: /, '')}` : err.message);
        }
        await writeConfig(req.storage, c);
        return undefined;
      },
    },
    read: {
      summary: 'Read the config (without the client secret)',
      handle: async (req) => {
        const c = await readConfig(req.storage);
        return c && { data: configView(c) };
      },
    },
  },
};

/** The config path of the jwt method. */
export const jwtConfigPaths: readonly SecretsPath[] = [configPath];
