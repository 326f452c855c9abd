/**
 * The public entry of Cairn's CSI kernel: the CSI v1 shapes (types.ts), the gRPC client
 * of a plugin socket (client.ts) and the reference hostpath plugin (hostpath/plugin.ts).
 * Code outside `kernel/csi/` imports from here.
 *
 * @module
 */
export * from './types.js';
export { csiClient, DEFAULT_CSI_CALL_TIMEOUT_MS, grpcCodeName } from './client.js';
export { startHostpathPlugin, HOSTPATH_SUPPORTED_CAPABILITIES, type HostpathPlugin } from './hostpath/plugin.js';
export { HOSTPATH_PLUGIN_NAME, HOSTPATH_VENDOR_VERSION } from './hostpath/identity.js';
export { DEFAULT_CAPACITY_BYTES as HOSTPATH_DEFAULT_CAPACITY_BYTES } from './hostpath/controller.js';
