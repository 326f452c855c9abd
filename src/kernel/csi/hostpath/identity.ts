/**
 * The hostpath plugin's Identity service (CSI spec "Identity Service RPC"): its name and
 * version, its plugin capabilities, and `Probe`.
 *
 * @module
 */
import type * as grpc from '@grpc/grpc-js';
import type { HostpathContext } from './context.js';
import { unary } from './rpc.js';

/** The plugin name `GetPluginInfo` reports (domain-name notation, as the spec asks). */
export const HOSTPATH_PLUGIN_NAME = 'hostpath.csi.cairn.dev';

/** The vendor version `GetPluginInfo` reports. */
export const HOSTPATH_VENDOR_VERSION = '0.1.0';

/**
 * Identity handlers: `GetPluginInfo` (name, version, manifest `{ root, node }`),
 * `GetPluginCapabilities` (CONTROLLER_SERVICE; VOLUME_ACCESSIBILITY_CONSTRAINTS, since
 * volumes and nodes carry the `topology.cairn.dev/node` segment; ONLINE expansion when
 * EXPAND_VOLUME is on) and `Probe` (always ready once serving).
 */
export function identityHandlers(ctx: HostpathContext): grpc.UntypedServiceImplementation {
  return {
    GetPluginInfo: unary('GetPluginInfo', ctx.log, async () => ({
      name: HOSTPATH_PLUGIN_NAME,
      vendor_version: HOSTPATH_VENDOR_VERSION,
      manifest: { root: ctx.store.root, node: ctx.nodeId },
    })),
    GetPluginCapabilities: unary('GetPluginCapabilities', ctx.log, async () => ({
      capabilities: [
        { service: { type: 'CONTROLLER_SERVICE' } },
        { service: { type: 'VOLUME_ACCESSIBILITY_CONSTRAINTS' } },
        ...(ctx.caps.has('EXPAND_VOLUME') ? [{ volume_expansion: { type: 'ONLINE' } }] : []),
      ],
    })),
    Probe: unary('Probe', ctx.log, async () => ({ ready: { value: true } })),
  };
}
