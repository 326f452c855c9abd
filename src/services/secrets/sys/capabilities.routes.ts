/**
 * `sys/capabilities-self` and `sys/capabilities`: the capabilities a token holds on
 * paths (reference/secrets.md §3.7, §5; the reference's `handleCapabilities`). The
 * answer maps each path to its sorted capabilities (`["deny"]` when none, `["root"]` for
 * a root token); with exactly one path, `capabilities` repeats its list. The data is
 * also copied to the top level, as the reference does for these paths.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, badRequest, commaList, forbidden } from '../../../kernel/http/index.js';
import { templateIdentity, type TokenEntry } from '../token/store.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';

const PATH_FIELDS = {
  paths: CommaList('paths, as a list or a comma-separated string'),
  path: CommaList('deprecated alias of "paths"'),
};

/** `paths` (else `path`) as trimmed, non-empty paths without a leading `/`. Errors: 400 when there are none. */
function pathsOf(d: Readonly<Record<string, unknown>>): string[] {
  // Validation may already have coerced a comma-separated string into a one-element list.
  const paths = commaList(d.paths).length ? commaList(d.paths) : commaList(d.path);
  if (!paths.length) throw badRequest('missing required field "paths"');
  return paths.map((p) => p.replace(/^\//, ''));
}

async function capabilities(req: SecretsRequest, token: TokenEntry): Promise<SecretsResult> {
  const paths = pathsOf(req.data);
  const acl = await req.ns.policies.acl(token.policies, templateIdentity(token));
  const data: Record<string, unknown> = {};
  for (const p of paths) data[p] = acl.capabilities(p);
  if (paths.length === 1) data.capabilities = data[paths[0]];
  return { data, topLevel: true };
}

const selfPath: SecretsPath = {
  pattern: 'capabilities-self',
  synopsis: "Show the calling token's capabilities on paths",
  fields: PATH_FIELDS,
  operations: {
    update: {
      summary: 'Capabilities of the calling token',
      handle: async (req) => {
        if (!req.token) throw forbidden();
        return capabilities(req, req.token);
      },
    },
  },
};

const tokenPath: SecretsPath = {
  pattern: 'capabilities',
  synopsis: "Show a token's capabilities on paths",
  fields: { token: Type.String({ description: 'the token to check' }), ...PATH_FIELDS },
  operations: {
    update: {
      summary: 'Capabilities of a token',
      required: ['token'],
      handle: async (req) => {
        const token = await req.core.tokens.lookup(String(req.data.token), req.now);
        if (!token) throw badRequest('invalid token');
        return capabilities(req, token);
      },
    },
  },
};

/** The capabilities family of the system backend. */
export const capabilitiesPaths: readonly SecretsPath[] = [selfPath, tokenPath];
