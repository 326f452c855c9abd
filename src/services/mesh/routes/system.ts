/**
 * `PUT /acl/bootstrap` and `GET /acl/replication` (spec 001; reference/mesh.md §1, §2.1).
 * Neither needs a token.
 *
 * @module
 */
import { aclDisabled, meshBadRequest, type MeshReply, type MeshRoute } from '../http.js';
import { bootstrap } from '../bootstrap.js';
import type { Ctx, MeshDeps } from '../deps.js';
import { ZERO_TIME } from '../../../kernel/replicate/index.js';
import { renderToken } from './tokens.js';


async function bootstrapHandler(ctx: Ctx): Promise<MeshReply> {
  const { config, state, now } = ctx.deps;
  if (!config.acl.enabled) throw aclDisabled();
  if (config.datacenter !== config.primaryDatacenter) {
    throw meshBadRequest(`ACL bootstrap is only possible in the primary datacenter "${config.primaryDatacenter}"`);
  }
  let input: { BootstrapSecret?: unknown } | undefined;
  try {
    input = ctx.body<{ BootstrapSecret?: unknown }>();
  } catch (err) {
    throw meshBadRequest(`Request decoding failed: ${(err as Error).message.replace(/^Failed to decode request body: /, '')}`);
  }
  const token = await bootstrap(state, config.dataDir, input?.BootstrapSecret, now());
  // The legacy top-level `ID` (= SecretID) the reference still sends (reference/mesh.md §1).
  return { body: { ID: token.SecretID, ...renderToken(state, token, true, config.enterprise) } };
}

async function replicationHandler(ctx: Ctx): Promise<MeshReply> {
  const { config, replicator } = ctx.deps;
  if (!config.acl.enabled) throw aclDisabled();
  if (replicator) return { body: replicator.status() };
  // The primary replicates from nobody (reference/mesh.md §2.1, observed shape).
  return {
    body: {
      Enabled: false,
      Running: false,
      SourceDatacenter: '',
      ReplicationType: '',
      ReplicatedIndex: 0,
      ReplicatedRoleIndex: 0,
      ReplicatedTokenIndex: 0,
      LastSuccess: ZERO_TIME,
      LastError: ZERO_TIME,
      LastErrorMessage: '',
    },
  };
}

/** Bootstrap and replication status. */
export const systemRoutes: readonly MeshRoute<MeshDeps>[] = [
  { pattern: 'acl/bootstrap', synopsis: 'Bootstrap the ACL system', methods: { PUT: bootstrapHandler } },
  { pattern: 'acl/replication', synopsis: 'ACL replication status', methods: { GET: replicationHandler } },
];
