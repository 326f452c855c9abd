/**
 * A client of one CSI plugin endpoint: the CSI v1 Identity, Controller and Node services
 * over gRPC on a unix socket (`csi.proto`, @grpc/grpc-js), in the shapes of types.ts.
 * This is how the reference scheduler talks to plugins (reference/sched.md §4.12): one
 * channel per plugin socket, a deadline on every call, gRPC errors surfaced with their
 * status and the plugin's text.
 *
 * @module
 */
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { csiServices } from './proto.js';
import {
  CONTROLLER_CAPABILITIES,
  CsiError,
  NODE_CAPABILITIES,
  PLUGIN_CAPABILITIES,
  type ControllerCapability,
  type CsiFullClient,
  type ListedVolume,
  type NodeCapability,
  type PluginCapability,
} from './types.js';
import { fromWireSnapshot, fromWireVolume, toWireCapability, toWireContentSource, toWireTopologies, type WireSnapshot, type WireVolume } from './wire.js';

/** Options of {@link csiClient}. */
export interface CsiClientOptions {
  /** Deadline of each call in milliseconds; default 30 000 (30 s). */
  readonly timeoutMs?: number;
}

/** Go's names of the gRPC status codes (`codes.Code.String()`), by number. */
const GO_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

/**
 * The name Go prints for gRPC status `code` (`5` → `NotFound`), `Code(N)` outside 0–16,
 * as in `rpc error: code = NotFound desc = …`.
 */
export function grpcCodeName(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

const KNOWN_PLUGIN: ReadonlySet<string> = new Set(PLUGIN_CAPABILITIES);
const KNOWN_CONTROLLER: ReadonlySet<string> = new Set(CONTROLLER_CAPABILITIES);
const KNOWN_NODE: ReadonlySet<string> = new Set(NODE_CAPABILITIES);

type Service = 'Identity' | 'Controller' | 'Node';
type Callback = (err: grpc.ServiceError | null, res?: unknown) => void;
type Method = (req: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, cb: Callback) => grpc.ClientUnaryCall;

const map = (m: Readonly<Record<string, string>> | undefined): Record<string, string> => ({ ...(m ?? {}) });
const range = (r: { readonly requiredBytes: number; readonly limitBytes: number } | undefined) =>
  r ? { required_bytes: r.requiredBytes, limit_bytes: r.limitBytes } : null;

/** A thrown or returned error as a {@link CsiError} of `rpc`. */
function toCsiError(rpc: string, err: unknown): CsiError {
  if (err instanceof CsiError) return err;
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e?.code === 'number') return new CsiError(rpc, grpcCodeName(e.code), e.details ?? e.message ?? '');
  return new CsiError(rpc, 'Unknown', err instanceof Error ? err.message : String(err));
}

/** Deadline of one call when `timeoutMs` is not given, in ms. */
export const DEFAULT_CSI_CALL_TIMEOUT_MS = 30_000;

/**
 * A client of the CSI plugin listening on the unix socket `socketPath` (relative paths
 * are made absolute). The channel connects lazily; a plugin that is not listening yields
 * {@link CsiError} `Unavailable`, a call over its deadline `DeadlineExceeded`. int64
 * fields are JS numbers (exact up to 2^53 bytes), maps plain objects, enums the spec's
 * names; capabilities the plugin reports that types.ts does not name are dropped.
 *
 * Every method rejects with {@link CsiError} (`rpc` is the CSI method name); after
 * `close()` calls reject with `Canceled`.
 *
 * @param socketPath Path of the plugin's unix socket (`csi.sock`).
 * @param options Per-call deadline.
 * @see CSI spec v1 "RPC Interface", "Error Scheme"; reference/sched.md §4.12.
 */
export function csiClient(socketPath: string, options: CsiClientOptions = {}): CsiFullClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CSI_CALL_TIMEOUT_MS;
  const socket = resolve(socketPath);
  const services = csiServices();
  const target = `unix:${socket}`;
  const credentials = grpc.credentials.createInsecure();
  // Its own subchannels: grpc-js shares them between channels to one target by default, so a
  // new client made after a plugin restart would inherit the old one's reconnect backoff.
  const identity = new services.Identity(target, credentials, { 'grpc.use_local_subchannel_pool': 1 });
  const channelOverride = identity.getChannel();
  const clients: Record<Service, grpc.Client> = {
    Identity: identity,
    Controller: new services.Controller(target, credentials, { channelOverride }),
    Node: new services.Node(target, credentials, { channelOverride }),
  };
  let closed = false;

  function call<T>(service: Service, rpc: string, req: unknown): Promise<T> {
    if (closed) return Promise.reject(new CsiError(rpc, 'Canceled', 'grpc: the client connection is closing'));
    return new Promise<T>((resolvePromise, reject) => {
      try {
        const method = (clients[service] as unknown as Record<string, Method>)[rpc];
        method.call(clients[service], req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
          if (err) reject(toCsiError(rpc, err));
          else resolvePromise(res as T);
        });
      } catch (err) {
        reject(toCsiError(rpc, err));
      }
    });
  }

  const known = <T extends string>(names: ReadonlySet<string>, list: readonly (string | number)[]): T[] =>
    list.filter((n): n is T => typeof n === 'string' && names.has(n));

  return {
    socket,

    async getPluginInfo() {
      const r = await call<{ name: string; vendor_version: string; manifest: Record<string, string> }>('Identity', 'GetPluginInfo', {});
      return { name: r.name, vendorVersion: r.vendor_version, manifest: { ...r.manifest } };
    },

    async getPluginCapabilities() {
      type Cap = { service?: { type: string | number } | null; volume_expansion?: { type: string | number } | null };
      const r = await call<{ capabilities: Cap[] }>('Identity', 'GetPluginCapabilities', {});
      const names = r.capabilities.map((c) => c.service?.type ?? c.volume_expansion?.type ?? 'UNKNOWN');
      return known<PluginCapability>(KNOWN_PLUGIN, names);
    },

    async probe() {
      const r = await call<{ ready: { value: boolean } | null }>('Identity', 'Probe', {});
      return r.ready === null || r.ready === undefined ? true : r.ready.value;
    },

    async controllerGetCapabilities() {
      const r = await call<{ capabilities: { rpc?: { type: string | number } | null }[] }>('Controller', 'ControllerGetCapabilities', {});
      return known<ControllerCapability>(
        KNOWN_CONTROLLER,
        r.capabilities.map((c) => c.rpc?.type ?? 'UNKNOWN'),
      );
    },

    async createVolume(req) {
      const r = await call<{ volume: WireVolume | null }>('Controller', 'CreateVolume', {
        name: req.name,
        capacity_range: range(req.capacityRange),
        volume_capabilities: req.volumeCapabilities.map(toWireCapability),
        parameters: map(req.parameters),
        secrets: map(req.secrets),
        volume_content_source: toWireContentSource(req.contentSource),
        accessibility_requirements: req.accessibilityRequirements
          ? { requisite: toWireTopologies(req.accessibilityRequirements.requisite), preferred: toWireTopologies(req.accessibilityRequirements.preferred) }
          : null,
      });
      return fromWireVolume(r.volume);
    },

    async deleteVolume(volumeId, secrets) {
      await call('Controller', 'DeleteVolume', { volume_id: volumeId, secrets: map(secrets) });
    },

    async controllerPublishVolume(req) {
      const r = await call<{ publish_context: Record<string, string> }>('Controller', 'ControllerPublishVolume', {
        volume_id: req.volumeId,
        node_id: req.nodeId,
        volume_capability: toWireCapability(req.volumeCapability),
        readonly: req.readonly,
        secrets: map(req.secrets),
        volume_context: map(req.volumeContext),
      });
      return { publishContext: { ...r.publish_context } };
    },

    async controllerUnpublishVolume(volumeId, nodeId, secrets) {
      await call('Controller', 'ControllerUnpublishVolume', { volume_id: volumeId, node_id: nodeId, secrets: map(secrets) });
    },

    async validateVolumeCapabilities(req) {
      const r = await call<{ confirmed: unknown; message: string }>('Controller', 'ValidateVolumeCapabilities', {
        volume_id: req.volumeId,
        volume_capabilities: req.volumeCapabilities.map(toWireCapability),
        volume_context: map(req.volumeContext),
        parameters: map(req.parameters),
        secrets: map(req.secrets),
      });
      return { confirmed: r.confirmed !== null && r.confirmed !== undefined, message: r.message };
    },

    async listVolumes(req) {
      type Entry = {
        volume: WireVolume | null;
        status: { published_node_ids: string[]; volume_condition: { abnormal: boolean; message: string } | null } | null;
      };
      const r = await call<{ entries: Entry[]; next_token: string }>('Controller', 'ListVolumes', {
        max_entries: req.maxEntries,
        starting_token: req.startingToken ?? '',
      });
      const entries = r.entries.map((e): ListedVolume => {
        const condition = e.status?.volume_condition;
        return {
          volume: fromWireVolume(e.volume),
          publishedNodeIds: [...(e.status?.published_node_ids ?? [])],
          ...(condition ? { condition: { abnormal: condition.abnormal, message: condition.message } } : {}),
        };
      });
      return { entries, nextToken: r.next_token };
    },

    async getCapacity(req = {}) {
      const r = await call<{ available_capacity: number; maximum_volume_size: { value: number } | null }>('Controller', 'GetCapacity', {
        volume_capabilities: (req.volumeCapabilities ?? []).map(toWireCapability),
        parameters: map(req.parameters),
        accessible_topology: req.accessibleTopology ? { segments: { ...req.accessibleTopology } } : null,
      });
      return { availableCapacity: r.available_capacity, ...(r.maximum_volume_size ? { maximumVolumeSize: r.maximum_volume_size.value } : {}) };
    },

    async controllerExpandVolume(req) {
      const r = await call<{ capacity_bytes: number; node_expansion_required: boolean }>('Controller', 'ControllerExpandVolume', {
        volume_id: req.volumeId,
        capacity_range: range(req.capacityRange),
        secrets: map(req.secrets),
        volume_capability: req.volumeCapability ? toWireCapability(req.volumeCapability) : null,
      });
      return { capacityBytes: r.capacity_bytes, nodeExpansionRequired: r.node_expansion_required };
    },

    async createSnapshot(req) {
      const r = await call<{ snapshot: WireSnapshot | null }>('Controller', 'CreateSnapshot', {
        source_volume_id: req.sourceVolumeId,
        name: req.name,
        secrets: map(req.secrets),
        parameters: map(req.parameters),
      });
      return fromWireSnapshot(r.snapshot);
    },

    async deleteSnapshot(snapshotId, secrets) {
      await call('Controller', 'DeleteSnapshot', { snapshot_id: snapshotId, secrets: map(secrets) });
    },

    async listSnapshots(req) {
      const r = await call<{ entries: { snapshot: WireSnapshot | null }[]; next_token: string }>('Controller', 'ListSnapshots', {
        max_entries: req.maxEntries,
        starting_token: req.startingToken ?? '',
        source_volume_id: req.sourceVolumeId ?? '',
        snapshot_id: req.snapshotId ?? '',
        secrets: map(req.secrets),
      });
      return { entries: r.entries.map((e) => fromWireSnapshot(e.snapshot)), nextToken: r.next_token };
    },

    async nodeGetInfo() {
      const r = await call<{ node_id: string; max_volumes_per_node: number; accessible_topology: { segments: Record<string, string> } | null }>(
        'Node',
        'NodeGetInfo',
        {},
      );
      return {
        nodeId: r.node_id,
        maxVolumesPerNode: r.max_volumes_per_node,
        ...(r.accessible_topology ? { accessibleTopology: { ...r.accessible_topology.segments } } : {}),
      };
    },

    async nodeGetCapabilities() {
      const r = await call<{ capabilities: { rpc?: { type: string | number } | null }[] }>('Node', 'NodeGetCapabilities', {});
      return known<NodeCapability>(
        KNOWN_NODE,
        r.capabilities.map((c) => c.rpc?.type ?? 'UNKNOWN'),
      );
    },

    async nodeStageVolume(req) {
      await call('Node', 'NodeStageVolume', {
        volume_id: req.volumeId,
        publish_context: map(req.publishContext),
        staging_target_path: req.stagingTargetPath,
        volume_capability: toWireCapability(req.volumeCapability),
        secrets: map(req.secrets),
        volume_context: map(req.volumeContext),
      });
    },

    async nodeUnstageVolume(volumeId, stagingTargetPath) {
      await call('Node', 'NodeUnstageVolume', { volume_id: volumeId, staging_target_path: stagingTargetPath });
    },

    async nodePublishVolume(req) {
      await call('Node', 'NodePublishVolume', {
        volume_id: req.volumeId,
        publish_context: map(req.publishContext),
        staging_target_path: req.stagingTargetPath ?? '',
        target_path: req.targetPath,
        volume_capability: toWireCapability(req.volumeCapability),
        readonly: req.readonly,
        secrets: map(req.secrets),
        volume_context: map(req.volumeContext),
      });
    },

    async nodeUnpublishVolume(volumeId, targetPath) {
      await call('Node', 'NodeUnpublishVolume', { volume_id: volumeId, target_path: targetPath });
    },

    close() {
      if (closed) return;
      closed = true;
      // The three clients share one channel; closing it once closes all.
      identity.close();
    },
  };
}
