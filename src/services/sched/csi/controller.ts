/**
 * Reaching a plugin's controller for a volume operation: the plugin must exist, have a
 * controller, advertise the capability the operation needs (a clear 400 naming it, spec 002
 * "Errors": "Endpoints that need a plugin capability are supported only by plugins that
 * implement it") and have a healthy controller endpoint; and the CSI `VolumeCapability` of a
 * Cairn access and attachment mode.
 *
 * @module
 */
import type { CsiAccessMode, VolumeCapability } from '../../../kernel/csi/index.js';
import { CairnError } from '../../../kernel/http/index.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { schedBadRequest } from '../http.js';
import { T } from '../state.js';
import { CONTROLLER_FLAGS, type ControllerInfoDoc, type CsiPluginDoc } from './plugin-doc.js';
import type { ControllerHandle, CsiPlugins } from './plugins.js';
import type { MountOptionsDoc } from './volume.js';

/**
 * What these lookups read: the state (plugin rows) and the plugin registry (controller
 * endpoints). The service's deps (deps.ts `SchedDeps`) have both; named here so that CSI
 * code used by the client agent does not depend on the service's request layer.
 */
export interface ControllerDeps {
  readonly state: StateStore;
  readonly plugins: CsiPlugins;
}

/** The plugin row `id`. @throws 400 `no CSI plugin named "<id>" could be found` (the reference: 500). */
export function requirePlugin(deps: ControllerDeps, id: string): CsiPluginDoc {
  const p = deps.state.get<CsiPluginDoc>(T.csiPlugins, id);
  if (!p) throw schedBadRequest(`no CSI plugin named "${id}" could be found`);
  return p;
}

/** The controller capabilities plugin `p` advertises (its first controller that has answered), or undefined when it has no controller. */
function controllerCapabilities(p: CsiPluginDoc): ControllerInfoDoc | undefined {
  return Object.values(p.Controllers).find((c) => c.ControllerInfo)?.ControllerInfo ?? undefined;
}

/**
 * A healthy controller of plugin `id` that has capability `flag` (e.g. `SupportsCreateDelete`).
 * @throws 400 `no CSI plugin named "<id>" could be found`; 400 `plugin "<id>" has no
 *   controller, so it does not support <CAPABILITY>`; 400 `plugin "<id>" does not support
 *   <CAPABILITY>` (`CREATE_DELETE_VOLUME`, …); 503 `no healthy controllers for CSI plugin "<id>"`.
 */
export function requireController(deps: ControllerDeps, id: string, flag: keyof ControllerInfoDoc): ControllerHandle {
  const p = requirePlugin(deps, id);
  const capability = CONTROLLER_FLAGS[flag];
  const caps = controllerCapabilities(p);
  if (!caps && p.ControllersExpected === 0) throw schedBadRequest(`plugin "${id}" has no controller, so it does not support ${capability}`);
  if (caps && !caps[flag]) throw schedBadRequest(`plugin "${id}" does not support ${capability}`);
  const handle = healthyController(deps, id);
  if (!handle.info[flag]) throw schedBadRequest(`plugin "${id}" does not support ${capability}`);
  return handle;
}

/** A healthy controller endpoint of plugin `id`, whatever its capabilities. @throws 503 `no healthy controllers for CSI plugin "<id>"`. */
export function healthyController(deps: ControllerDeps, id: string): ControllerHandle {
  const handle = deps.plugins.controller(id);
  if (!handle) throw new CairnError('unavailable', `no healthy controllers for CSI plugin "${id}"`);
  return handle;
}

/**
 * The controller of plugin `id` when it has capability `flag` and is healthy, else undefined
 * (operations that are skipped without it: publish on claim, unpublish on release).
 */
export function optionalController(deps: ControllerDeps, id: string, flag: keyof ControllerInfoDoc): ControllerHandle | undefined {
  const h = deps.plugins.controller(id);
  return h?.info[flag] ? h : undefined;
}

/** Does plugin `id` advertise capability `flag` (whatever its health)? */
export function pluginHas(deps: ControllerDeps, id: string, flag: keyof ControllerInfoDoc): boolean {
  const p = deps.state.get<CsiPluginDoc>(T.csiPlugins, id);
  return p !== undefined && (controllerCapabilities(p)?.[flag] ?? false);
}

/**
 * The CSI `VolumeCapability` of access mode `access` (`single-node-writer` →
 * `SINGLE_NODE_WRITER`) and attachment mode `attachment` (`block-device` → block, else a
 * mount with `mount`'s file system and flags).
 */
export function volumeCapability(access: string, attachment: string, mount: MountOptionsDoc | null): VolumeCapability {
  return {
    accessMode: access.toUpperCase().replaceAll('-', '_') as CsiAccessMode,
    accessType: attachment === 'block-device' ? { block: true } : { mount: { fsType: mount?.FsType ?? '', mountFlags: mount?.MountFlags ?? [] } },
  };
}
