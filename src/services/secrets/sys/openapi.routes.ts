/**
 * `sys/internal/specs/openapi`: the OpenAPI document of every mount the caller may use
 * (../openapi.ts). Served without a token, as the reference (then it documents no mount);
 * GET reads `generic_mount_paths` from the query, POST/PUT from the body.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { secretsOpenapi } from '../openapi.js';
import type { EngineLookup, SecretsPath, SecretsRequest } from '../types.js';

const fields = { generic_mount_paths: Type.Boolean({ description: 'document each mount as {<type>_mount_path} instead of its actual path' }) };

/** The `sys/internal/specs/openapi` path; `engineOf` finds each mount's routes (engines.ts `engineFor`). */
export function openapiSpecPath(engineOf: EngineLookup): SecretsPath {
  const handle = async (r: SecretsRequest) => ({ raw: await secretsOpenapi(r, r.data.generic_mount_paths === true, engineOf) });
  return {
    pattern: 'internal/specs/openapi',
    synopsis: 'The OpenAPI document of every mount the caller may use, at its mount path',
    unauthenticated: true,
    fields,
    operations: {
      read: { summary: 'Generate the OpenAPI document', handle },
      update: { summary: 'Generate the OpenAPI document (parameters in the body)', handle },
    },
  };
}
