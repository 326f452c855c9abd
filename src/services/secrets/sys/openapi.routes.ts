/**
 * `sys/internal/specs/openapi`: the OpenAPI document of every mount the caller may use
 * (../openapi.ts). Served without a token, as the reference (then it documents no mount);
 * GET reads `generic_mount_paths` from the query, POST/PUT from the body.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { secretsOpenapi } from '../openapi.js';
import type { SecretsPath, SecretsRequest } from '../types.js';

const fields = { generic_mount_paths: Type.Boolean({ description: 'document each mount as {<type>_mount_path} instead of its actual path' }) };

const handle = async (r: SecretsRequest) => ({ raw: await secretsOpenapi(r, r.data.generic_mount_paths === true) });

/** The `sys/internal/specs/openapi` path. */
export const openapiSpecPath: SecretsPath = {
  pattern: 'internal/specs/openapi',
  synopsis: 'The OpenAPI document of every mount the caller may use, at its mount path',
  unauthenticated: true,
  fields,
  operations: {
    read: { summary: 'Generate the OpenAPI document', handle },
    update: { summary: 'Generate the OpenAPI document (parameters in the body)', handle },
  },
};
