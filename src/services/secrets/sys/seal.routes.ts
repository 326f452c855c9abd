/**
 * The system paths that work while sealed and answer without the envelope:
 * `sys/init`, `sys/seal-status`, `sys/unseal`, `sys/seal`, `sys/health`, `sys/leader`
 * (reference/secrets.md §1.1 "dedicated non-logical handlers", §1.7, §3.1–§3.4).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, forbidden, RouteTable, type HttpResponse, type PathSpec } from '../../../kernel/http/index.js';
import { renderBare } from '../envelope.js';
import type { SecretsNode } from '../node.js';
import { healthCode } from './health.js';

/** What these handlers see: the node, validated input, the caller's token (may be empty). */
export interface SysRequest {
  readonly node: SecretsNode;
  readonly data: Readonly<Record<string, unknown>>;
  readonly token: string;
}

type SysPath = PathSpec<SysRequest, HttpResponse>;

const initPath: SysPath = {
  pattern: 'init',
  synopsis: 'Initialise the secrets service: create the keys and split the unseal key',
  unauthenticated: true,
  fields: {
    secret_shares: Type.Integer({ description: 'number of unseal key shares to make' }),
    secret_threshold: Type.Integer({ description: 'shares needed to unseal' }),
  },
  operations: {
    read: {
      summary: 'Whether the service is initialised',
      fields: {},
      handle: async (r) => renderBare(200, { initialized: await r.node.seal.checkInitialized() }),
    },
    update: {
      summary: 'Initialise; returns the key shares and the root token',
      required: ['secret_shares', 'secret_threshold'],
      handle: async (r) => renderBare(200, await r.node.initialize(Number(r.data.secret_shares), Number(r.data.secret_threshold))),
    },
  },
};

const sealStatusPath: SysPath = {
  pattern: 'seal-status',
  synopsis: 'Seal state, threshold and unseal progress',
  unauthenticated: true,
  operations: { read: { summary: 'Read the seal status', handle: async (r) => renderBare(200, await r.node.seal.status(r.node.clusterInfo)) } },
};

const unsealPath: SysPath = {
  pattern: 'unseal',
  synopsis: 'Submit one unseal key share, or reset the progress',
  unauthenticated: true,
  fields: {
    key: Type.String({ description: 'one unseal key share, hex or base64' }),
    reset: Type.Boolean({ description: 'discard the shares given so far' }),
  },
  operations: {
    update: {
      summary: 'Submit a key share',
      handle: async (r) => {
        if (r.data.reset === true) {
          if (!r.node.seal.sealed) throw badRequest('secrets service is unsealed');
          r.node.seal.resetProgress();
        } else if (typeof r.data.key !== 'string' || r.data.key === '') {
          throw badRequest("'key' must be specified in request body as JSON, or 'reset' set to true");
        } else {
          await r.node.unseal(r.data.key);
        }
        return renderBare(200, await r.node.seal.status(r.node.clusterInfo));
      },
    },
  },
};

const sealPath: SysPath = {
  pattern: 'seal',
  synopsis: 'Seal the service: drop every key from memory',
  operations: {
    update: {
      summary: 'Seal (root or sudo on sys/seal)',
      handle: async (r) => {
        const core = r.node.requireCore();
        const token = await core.tokens.lookup(r.token, r.node.now());
        if (!token || !(await core.allowed(token, 'sys/seal', 'update'))) throw forbidden();
        r.node.sealNow();
        return { status: 204 };
      },
    },
  },
};

const code = (description: string) => Type.Integer({ minimum: 100, maximum: 599, description });

const healthPath: SysPath = {
  pattern: 'health',
  synopsis: 'Health for load balancers: the status code tells initialised, sealed, standby or active',
  unauthenticated: true,
  fields: {
    standbyok: Type.Boolean({ description: 'answer activecode on a standby' }),
    perfstandbyok: Type.Boolean({ description: 'answer activecode on a performance standby' }),
    activecode: code('status when active (200)'),
    standbycode: code('status when standby (429)'),
    drsecondarycode: code('status when a DR secondary (472)'),
    performancestandbycode: code('status when a performance standby (473)'),
    sealedcode: code('status when sealed (503)'),
    uninitcode: code('status when not initialised (501)'),
  },
  operations: {
    read: {
      summary: 'Read the health status',
      handle: async (r) => {
        const { node, data } = r;
        // An HA standby (unsealed, another server holds the lock) answers standbycode, or
        // performancestandbycode while it serves reads itself (it is a standby too, as in the reference).
        const state = {
          initialized: await node.seal.checkInitialized(),
          sealed: node.seal.sealed,
          standby: node.standby,
          performanceStandby: node.performanceStandby,
          drSecondary: false,
        };
        const cluster = node.clusterInfo;
        return renderBare(healthCode(state, data), {
          initialized: state.initialized,
          sealed: state.sealed,
          standby: state.standby,
          performance_standby: state.performanceStandby,
          replication_performance_mode: 'disabled',
          replication_dr_mode: 'disabled',
          server_time_utc: Math.floor(node.now().getTime() / 1000),
          version: node.seal.version,
          ...(cluster ? { cluster_name: cluster.name, cluster_id: cluster.id } : {}),
          // The reference's `last_wal` on the active server: here the storage's commit index.
          ...(node.activeCore && !state.standby && node.commitIndex ? { last_wal: node.commitIndex } : {}),
        });
      },
    },
  },
};

const leaderPath: SysPath = {
  pattern: 'leader',
  synopsis: 'High-availability status: which server is active',
  unauthenticated: true,
  operations: {
    read: {
      summary: 'Read the leader',
      handle: async (r) => renderBare(200, r.node.leaderStatus()),
    },
  },
};

/** Paths served before the seal check, relative to `sys/`. */
export const sealTable = new RouteTable<SysRequest, HttpResponse>([initPath, sealStatusPath, unsealPath, sealPath, healthPath, leaderPath]);
