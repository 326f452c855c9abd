/**
 * `PUT /acl/bootstrap`, `GET /acl/replication` (spec 001; reference/mesh.md §1, §2.1) and
 * `GET /status/leader` and `/status/peers` (the reference's status endpoints: the leader's
 * address as a JSON string, `""` when none is known; the servers' addresses). None needs a token.
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { PUBLIC, withBody, type ApiForward } from '../../../kernel/http/index.js';
import { ZERO_TIME } from '../../../kernel/replicate/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import type { MeshRouteSpec } from '../access.js';
import { meshBody } from '../body-decoding.js';
import { bootstrap } from '../bootstrap.js';
import type { Ctx } from '../deps.js';
import { aclDisabled, meshBadRequest, type MeshReply } from '../http.js';
import { renderToken } from './tokens.js';

/** The body of `PUT /acl/bootstrap` (reference/mesh.md §1); `BootstrapSecret` keeps its own check (`must be a UUID`, bootstrap.ts). */
const BootstrapBody = meshBody('Bootstrap', { BootstrapSecret: Go.any("a UUID: the initial management token's SecretID (new when absent)") });

async function bootstrapHandler(ctx: Ctx, input: Static<typeof BootstrapBody> | undefined): Promise<MeshReply> {
  const { config, state, now } = ctx.deps;
  if (!config.acl.enabled) throw aclDisabled();
  if (config.datacenter !== config.primaryDatacenter) {
    throw meshBadRequest(`ACL bootstrap is only possible in the primary datacenter "${config.primaryDatacenter}"`);
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

/** The leader's `host:port`: this agent alone or leading, else the one the shared state names (`""` when none). */
function leaderOf(ctx: Ctx): string {
  const { leadership, self } = ctx.deps;
  return !leadership || leadership.isLeader ? self() : (leadership.leaderAddress ?? '');
}

/** `GET /status/leader` → `"host:port"`, `""` when no leader is known. */
async function leaderHandler(ctx: Ctx): Promise<MeshReply> {
  return { body: leaderOf(ctx) };
}

/**
 * `GET /status/peers` → `["host:port"]`: the reference lists its raft voters; Cairn has no
 * raft, its one writer is the leader, so the list holds the leader (`[]` when none is known).
 */
async function peersHandler(ctx: Ctx): Promise<MeshReply> {
  const leader = leaderOf(ctx);
  return { body: leader === '' ? [] : [leader] };
}

/** Only the leader of a secondary's shared state replicates: a follower asks it. */
const replicationForward = (ctx: Ctx): ApiForward | undefined => (ctx.deps.replicator ? 'leader' : undefined);

/** Bootstrap, replication status, leader, peers: anyone may call them (bootstrap and replication with ACLs on). */
export const systemRoutes: readonly MeshRouteSpec[] = [
  { pattern: 'status/leader', synopsis: "The address of the datacenter's leader", methods: { GET: { access: PUBLIC, handle: leaderHandler } } },
  { pattern: 'status/peers', synopsis: "The addresses of the datacenter's servers (the leader)", methods: { GET: { access: PUBLIC, handle: peersHandler } } },
  {
    pattern: 'acl/bootstrap',
    synopsis: 'Bootstrap the ACL system',
    methods: { PUT: withBody(BootstrapBody, { bodyKind: 'Request', access: PUBLIC, handle: bootstrapHandler }) },
  },
  {
    pattern: 'acl/replication',
    synopsis: 'ACL replication status',
    methods: { GET: { access: PUBLIC, forward: replicationForward, handle: replicationHandler } },
  },
];
