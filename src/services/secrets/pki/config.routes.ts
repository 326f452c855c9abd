/**
 * Configuration paths of the PKI engine (reference/secrets-engines.md §7): `config/issuers`
 * (the default issuer), `config/urls` (AIA issuing-certificate and OCSP URLs and CRL
 * distribution points written into certificates issued afterwards), `config/crl` (CRL
 * lifetime; `disable` publishes an empty CRL; `auto_rebuild` is accepted and kept).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, commaList } from '../../../kernel/http/index.js';
import { InputError, formatDuration, hasField, parseDuration } from '../../../kernel/util/duration.js';
import type { SecretsPath } from '../types.js';
import { rebuildAllCrls } from './crl.js';
import { findIssuer } from './issuers.js';
import { pkiStoreOf } from './store.js';

const issuersConfigPath: SecretsPath = {
  pattern: 'config/issuers',
  synopsis: 'Read or set the default issuer',
  fields: {
    default: Type.String({ maxLength: 256, description: 'issuer id or name to make the default' }),
    default_follows_latest_issuer: Type.Boolean({ description: 'accepted; only false is supported' }),
  },
  operations: {
    read: {
      summary: 'Read the default issuer',
      handle: async (req) => ({ data: { default: (await pkiStoreOf(req).defaultIssuerId()) ?? '', default_follows_latest_issuer: false } }),
    },
    update: {
      summary: 'Set the default issuer',
      required: ['default'],
      handle: async (req) => {
        if (req.data.default_follows_latest_issuer === true) throw new InputError('default_follows_latest_issuer: not supported (docs/compatibility.md)');
        const store = pkiStoreOf(req);
        const issuer = await findIssuer(store, String(req.data.default));
        if (!issuer || req.data.default === 'default') throw new InputError(`default: unable to find PKI issuer for reference: ${String(req.data.default)}`);
        await store.setDefaultIssuer(issuer.issuer_id);
        return { data: { default: issuer.issuer_id, default_follows_latest_issuer: false } };
      },
    },
  },
};

const URL_FIELDS = ['issuing_certificates', 'crl_distribution_points', 'ocsp_servers'] as const;

const urlsPath: SecretsPath = {
  pattern: 'config/urls',
  synopsis: 'Read or set the URLs written into issued certificates',
  fields: {
    issuing_certificates: CommaList('URLs of the issuing CA certificate (AIA caIssuers)'),
    crl_distribution_points: CommaList('URLs of the CRL (CRL distribution points)'),
    ocsp_servers: CommaList('URLs of OCSP responders (AIA ocsp)'),
    enable_templating: Type.Boolean({ description: 'accepted; templates are not expanded' }),
  },
  operations: {
    read: { summary: 'Read the URLs', handle: async (req) => ({ data: { ...(await pkiStoreOf(req).urls()) } }) },
    update: {
      summary: 'Set the URLs (fields not given keep their value)',
      handle: async (req) => {
        const store = pkiStoreOf(req);
        const next = await store.urls();
        for (const f of URL_FIELDS) {
          if (!hasField(req.data, f)) continue;
          const urls = commaList(req.data[f]);
          for (const u of urls) if (!URL.canParse(u)) throw new InputError(`${f}: invalid URL ${JSON.stringify(u.slice(0, 200))}`);
          if (urls.length > 16) throw new InputError(`${f}: at most 16 URLs`);
          next[f] = urls;
        }
        if (hasField(req.data, 'enable_templating')) next.enable_templating = req.data.enable_templating === true;
        await store.putUrls(next);
        return undefined;
      },
    },
  },
};

const crlConfigPath: SecretsPath = {
  pattern: 'config/crl',
  synopsis: 'Read or set how CRLs are built',
  fields: {
    expiry: Type.Union([Type.String(), Type.Integer()], { description: 'how long a CRL is valid (default "72h")' }),
    disable: Type.Boolean({ description: 'publish an empty CRL' }),
    auto_rebuild: Type.Boolean({ description: 'accepted and kept; Cairn rebuilds the CRL on every revocation either way' }),
  },
  operations: {
    read: {
      summary: 'Read the CRL configuration',
      handle: async (req) => {
        const c = await pkiStoreOf(req).crlConfig();
        return {
          data: {
            expiry: formatDuration(c.expiry)
              .replace(/h0m0s$/, 'h')
              .replace(/m0s$/, 'm'),
            disable: c.disable,
            auto_rebuild: c.auto_rebuild,
          },
        };
      },
    },
    update: {
      summary: 'Set the CRL configuration (fields not given keep their value)',
      handle: async (req) => {
        const store = pkiStoreOf(req);
        const c = await store.crlConfig();
        if (hasField(req.data, 'expiry')) {
          const s = parseDuration(req.data.expiry, 'expiry');
          if (s <= 0 || s > 10 * 365 * 86400) throw new InputError('expiry: must be between 1s and 10 years');
          c.expiry = s;
        }
        if (hasField(req.data, 'disable')) c.disable = req.data.disable === true;
        if (hasField(req.data, 'auto_rebuild')) c.auto_rebuild = req.data.auto_rebuild === true;
        await store.putCrlConfig(c);
        await rebuildAllCrls(store, req.now);
        return undefined;
      },
    },
  },
};

/** The configuration paths. */
export const configPaths: readonly SecretsPath[] = [issuersConfigPath, urlsPath, crlConfigPath];
