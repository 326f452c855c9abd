/**
 * `sys/config/cors`: read, set and clear the CORS configuration (reference/secrets.md
 * §1.11). Root-protected: writes need `sudo` (§5.2).
 *
 * @module
 */
import { CommaList, badRequest, commaList } from '../../../kernel/http/index.js';
import type { SecretsPath } from '../types.js';

/** The `sys/config/cors` path. */
export const corsPath: SecretsPath = {
  pattern: 'config/cors',
  synopsis: 'Configure which browser origins may call the API',
  fields: {
    allowed_origins: CommaList('origins allowed, or "*"; a list or a comma-separated string'),
    allowed_headers: CommaList('headers allowed in addition to the defaults'),
  },
  operations: {
    read: {
      summary: 'Read the CORS configuration',
      fields: {},
      handle: async (req) => {
        const c = req.core.cors.current;
        return { data: { enabled: c.enabled, allowed_origins: [...c.allowed_origins], allowed_headers: [...c.allowed_headers] } };
      },
    },
    update: {
      summary: 'Enable CORS for the given origins',
      required: ['allowed_origins'],
      handle: async (req) => {
        const origins = commaList(req.data.allowed_origins);
        if (origins.length === 0) throw badRequest('allowed_origins: at least one origin (or "*") is required');
        if (origins.includes('*') && origins.length > 1) throw badRequest('allowed_origins: "*" cannot be combined with other origins');
        for (const o of origins)
          if (o !== '*' && !/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/i.test(o)) throw badRequest(`allowed_origins: "${o}" is not an origin (scheme://host[:port])`);
        await req.core.cors.set({ enabled: true, allowed_origins: origins, allowed_headers: commaList(req.data.allowed_headers) });
        return undefined;
      },
    },
    delete: {
      summary: 'Disable CORS',
      fields: {},
      handle: async (req) => {
        await req.core.cors.clear();
        return undefined;
      },
    },
  },
};
