/**
 * The discovery key/value and ACL screens, the scheduler CSI and ACL screens and the secrets
 * database, transit and PKI screens, each loaded
 * on first use (its own chunk), so the first visit's JavaScript stays within its budget.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { Loading } from '../components/Notice';
import { MeshNav } from './mesh/MeshNav';
import { MESH_ACL } from './mesh/acl';
import { SchedNav } from './sched/SchedNav';
import { SCHED_ACL } from './sched/acl';

/** `load`'s export `name` as a lazily loaded screen. */
export function later<P extends object>(load: () => Promise<Record<string, ComponentType<P>>>, name: string): ComponentType<P> {
  const Screen = lazy(() => load().then((m) => ({ default: m[name] })));
  return (props: P) => (
    <Suspense fallback={<Loading />}>
      <Screen {...props} />
    </Suspense>
  );
}

const AclObjects = later(() => import('./acl/AclObjects'), 'AclObjects');
export const MeshKv = later(() => import('./mesh/Kv'), 'Kv');
export const CsiPlugins = later(() => import('./sched/Plugins'), 'Plugins');
export const CsiPlugin = later(() => import('./sched/Plugins'), 'PluginDetail');
export const CsiVolumes = later(() => import('./sched/Volumes'), 'Volumes');
export const CsiVolume = later(() => import('./sched/Volumes'), 'VolumeDetail');
export const SecretsEngine = later(() => import('./secrets/engines/EngineScreen'), 'EngineScreen');
export const MeshAcl = ({ creating }: { creating?: boolean }) => <AclObjects service={MESH_ACL} Nav={MeshNav} creating={creating} />;
export const SchedAcl = ({ creating }: { creating?: boolean }) => <AclObjects service={SCHED_ACL} Nav={SchedNav} creating={creating} />;
