/**
 * Cairn's reference CSI plugin, "hostpath": a real CSI v1 gRPC server on a unix socket
 * (Identity, Controller and Node services, `csi.proto`) whose volumes are directories
 * under a root directory. It needs no root privileges and mounts nothing, so tests and
 * `cairn csi hostpath` can run it anywhere; it is what the scheduler's CSI endpoints talk
 * to in tests (DESIGN.md "a real CSI plugin speaking the CSI gRPC spec over a unix socket").
 *
 * Several plugins may share one root, one per node ID: each registers its node in the
 * root, and a controller call can then publish volumes to any of them.
 *
 * @module
 */
import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { silentLogger, type Logger } from '../../log/logger.js';
import { csiServices } from '../proto.js';
import { CONTROLLER_CAPABILITIES, type ControllerCapability } from '../types.js';
import type { HostpathContext } from './context.js';
import { volumeHandlers } from './controller.js';
import { identityHandlers } from './identity.js';
import { nodeHandlers } from './node.js';
import { snapshotHandlers } from './snapshots.js';
import { HostpathStore } from './store.js';

/** Controller capabilities the plugin can serve: all Cairn knows but GET_VOLUME, whose RPC Cairn's proto does not declare (VOLUME_CONDITION and SINGLE_NODE_MULTI_WRITER are off by default). */
export const HOSTPATH_SUPPORTED_CAPABILITIES: readonly ControllerCapability[] = CONTROLLER_CAPABILITIES.filter((c) => c !== 'GET_VOLUME');

/** Controller capabilities on when {@link HostpathPluginOptions.capabilities} is not given. */
const HOSTPATH_DEFAULT_CAPABILITIES: readonly ControllerCapability[] = HOSTPATH_SUPPORTED_CAPABILITIES.filter(
  (c) => c !== 'VOLUME_CONDITION' && c !== 'SINGLE_NODE_MULTI_WRITER',
);

/** Longest unix socket path Linux accepts, in bytes (`sun_path` less its terminator). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Options of {@link startHostpathPlugin}. */
export interface HostpathPluginOptions {
  /** Path of the unix socket to serve on; a stale socket file there is removed first. */
  readonly socket: string;
  /** Directory holding volumes, snapshots and node bookkeeping (created when missing). */
  readonly root: string;
  /** This plugin's node ID (NodeGetInfo; at most 256 bytes). */
  readonly nodeId: string;
  /** Controller capabilities on (default {@link HOSTPATH_DEFAULT_CAPABILITIES}); an RPC whose capability is off answers UNIMPLEMENTED. */
  readonly capabilities?: readonly ControllerCapability[];
  /** Volumes ControllerPublishVolume may publish to this node; 0 (default) = no limit. */
  readonly maxVolumesPerNode?: number;
  /** Default: silent. Requests are never logged (they may hold secrets). */
  readonly log?: Logger;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/** A running hostpath plugin. */
export interface HostpathPlugin {
  /** The absolute socket path served. */
  readonly socket: string;
  /** Stops serving: waits up to `graceMs` (default 2000 ms) for calls in flight, then forces; removes the socket file. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Removes a socket file nobody serves on (left by a plugin that died).
 * @throws {Error} when another process serves on it, or the path is not a socket.
 */
async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) throw new Error(`csi hostpath: ${path} exists and is not a unix socket; not removing it`);
  const live = await new Promise<boolean>((done) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      done(true);
    });
    probe.once('error', () => done(false));
  });
  if (live) throw new Error(`csi hostpath: another process is serving on ${path}`);
  await unlink(path);
}

/** Checked options. @throws {Error} naming the first bad option. */
function settle(o: HostpathPluginOptions): { socket: string; root: string; caps: Set<ControllerCapability>; maxVolumesPerNode: number } {
  if (!o.socket) throw new Error('csi hostpath: socket is required');
  if (!o.root) throw new Error('csi hostpath: root is required');
  if (!o.nodeId) throw new Error('csi hostpath: nodeId is required');
  if (Buffer.byteLength(o.nodeId) > 256) throw new Error('csi hostpath: nodeId is longer than the 256 bytes CSI allows');
  const socket = resolve(o.socket);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`csi hostpath: socket path ${socket} is ${Buffer.byteLength(socket)} bytes; unix sockets allow ${MAX_SOCKET_PATH_BYTES}`);
  const caps = new Set(o.capabilities ?? HOSTPATH_DEFAULT_CAPABILITIES);
  for (const c of caps)
    if (!HOSTPATH_SUPPORTED_CAPABILITIES.includes(c))
      throw new Error(`csi hostpath: capability ${c} is not supported (supported: ${HOSTPATH_SUPPORTED_CAPABILITIES.join(', ')})`);
  const maxVolumesPerNode = o.maxVolumesPerNode ?? 0;
  if (!Number.isInteger(maxVolumesPerNode) || maxVolumesPerNode < 0)
    throw new Error(`csi hostpath: maxVolumesPerNode must be a non-negative integer, got ${o.maxVolumesPerNode}`);
  return { socket, root: resolve(o.root), caps, maxVolumesPerNode };
}

/**
 * Starts the hostpath CSI plugin: prepares `root`, registers `nodeId` there, removes a
 * stale socket file and serves the CSI v1 Identity, Controller and Node services on
 * `unix:<socket>` (CSI spec v1; behaviour per RPC in identity.ts, controller.ts,
 * snapshots.ts and node.ts).
 *
 * @throws {Error} for a bad option, a socket path in use or not a socket, or a socket
 *   that cannot be bound (the message names the path).
 */
export async function startHostpathPlugin(options: HostpathPluginOptions): Promise<HostpathPlugin> {
  const { socket, root, caps, maxVolumesPerNode } = settle(options);
  const log = options.log ?? silentLogger();
  const store = new HostpathStore(root);
  await store.init();
  const known = await store.getNode(options.nodeId);
  await store.putNode({ nodeId: options.nodeId, maxVolumesPerNode, staged: known?.staged ?? {}, published: known?.published ?? {} });
  const ctx: HostpathContext = { store, nodeId: options.nodeId, caps, maxVolumesPerNode, log, now: options.now ?? (() => Date.now()) };

  await clearStaleSocket(socket);
  const services = csiServices();
  const server = new grpc.Server();
  server.addService(services.Identity.service, identityHandlers(ctx));
  server.addService(services.Controller.service, { ...volumeHandlers(ctx), ...snapshotHandlers(ctx) });
  server.addService(services.Node.service, nodeHandlers(ctx));
  await new Promise<void>((done, reject) => {
    server.bindAsync(`unix:${socket}`, grpc.ServerCredentials.createInsecure(), (err) => {
      if (err) reject(new Error(`csi hostpath: cannot serve on ${socket}: ${err.message}`));
      else done();
    });
  });
  log.info({ socket, root, nodeId: options.nodeId, capabilities: [...caps] }, 'csi hostpath plugin serving');

  let closing: Promise<void> | undefined;
  return {
    socket,
    close(graceMs = 2000) {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          const force = setTimeout(() => {
            server.forceShutdown();
            done();
          }, graceMs);
          server.tryShutdown(() => {
            clearTimeout(force);
            done();
          });
        });
        await unlink(socket).catch(() => undefined);
        log.info({ socket }, 'csi hostpath plugin stopped');
      })();
      return closing;
    },
  };
}
