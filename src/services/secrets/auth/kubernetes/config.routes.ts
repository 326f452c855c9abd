/**
 * `config` of a `kubernetes` auth mount (reference: vault-plugin-auth-kubernetes
 * `auth/<mount>/config`): the API server (`kubernetes_host`), the CA its certificate
 * must chain to (`kubernetes_ca_cert`; empty = system roots) and the reviewer JWT
 * (`token_reviewer_jwt`; empty = each login's own token reviews itself). Checked by the
 * kernel's {@link validateKubernetesConfig}. A read shows `token_reviewer_jwt_set`,
 * never the JWT. A write replaces the config.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { AuthnError, validateKubernetesConfig } from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { kernelConfig, readK8sConfig, writeK8sConfig, type K8sConfig } from './config.js';

const configPath: SecretsPath = {
  pattern: 'config',
  synopsis: 'Configure the Kubernetes API server that reviews service-account tokens',
  description:
    "`kubernetes_host` is required. Without `token_reviewer_jwt`, each login's own JWT is used to call the TokenReview API. The reviewer JWT is never returned.",
  fields: {
    kubernetes_host: Type.String({ description: 'API server: host:port or an https:// URL' }),
    kubernetes_ca_cert: Type.String({ description: 'PEM CA bundle of the API server; empty = system roots' }),
    token_reviewer_jwt: Type.String({ description: "JWT of a service account allowed to create TokenReviews; empty = the login's own JWT" }),
    disable_local_ca_jwt: Type.Boolean({ description: "accepted for compatibility; Cairn never reads the pod's local CA or JWT" }),
  },
  operations: {
    update: {
      summary: 'Write the config',
      handle: async (req) => {
        const s = (k: string) => (req.data[k] === undefined ? '' : String(req.data[k]));
        const c: K8sConfig = {
          kubernetes_host: s('kubernetes_host').trim(),
          kubernetes_ca_cert: s('kubernetes_ca_cert'),
          token_reviewer_jwt: s('token_reviewer_jwt').trim(),
          disable_local_ca_jwt: req.data.disable_local_ca_jwt === true,
        };
        if (!c.kubernetes_host) throw badRequest('no host provided');
        try {
          validateKubernetesConfig(kernelConfig(c), { caCertOptional: true, reviewerJwtOptional: true });
        } catch (err) {
          if (err instanceof AuthnError) throw badRequest(err.message.replace(/^Config\.ServiceAccountJWT/, 'token_reviewer_jwt'));
          throw err;
        }
        await writeK8sConfig(req.storage, c);
        return undefined;
      },
    },
    read: {
      summary: 'Read the config (without the reviewer JWT)',
      handle: async (req) => {
        const c = await readK8sConfig(req.storage);
        return (
          c && {
            data: {
              kubernetes_host: c.kubernetes_host,
              kubernetes_ca_cert: c.kubernetes_ca_cert,
              token_reviewer_jwt_set: c.token_reviewer_jwt !== '',
              disable_local_ca_jwt: c.disable_local_ca_jwt,
            },
          }
        );
      },
    },
  },
};

/** The config path of the kubernetes method. */
export const k8sConfigPaths: readonly SecretsPath[] = [configPath];
