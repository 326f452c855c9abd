/** Routes of the UI; every screen but the login and the OIDC provider's callback needs a session. */
import { useEffect, useState } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import type { Section } from './api/client';
import { currentSession, onSessionChange, type Session } from './api/session';
import { Layout } from './components/Layout';
import { Login } from './screens/Login';
import { OidcCallback } from './screens/OidcCallback';
import { Mounts } from './screens/secrets/Mounts';
import { KvBrowser } from './screens/secrets/KvBrowser';
import { KvSecret } from './screens/secrets/KvSecret';
import { KvCreate } from './screens/secrets/KvCreate';
import { Policies } from './screens/secrets/Policies';
import { PolicyEdit } from './screens/secrets/PolicyEdit';
import { Seal } from './screens/secrets/Seal';
import { AuthMethods } from './screens/secrets/AuthMethods';
import { Tokens } from './screens/secrets/Tokens';
import { Audit } from './screens/secrets/Audit';
import { Leases } from './screens/secrets/Leases';
import { Wrapping } from './screens/secrets/Wrapping';
import { HaStatus } from './screens/secrets/HaStatus';
import { Services } from './screens/mesh/Services';
import { MeshNodes } from './screens/mesh/Nodes';
import { Events } from './screens/sched/Events';
import { SchedNodes } from './screens/sched/Nodes';
import { Allocations } from './screens/sched/Allocations';
import { Allocation } from './screens/sched/Allocation';
import { Jobs } from './screens/sched/Jobs';
import { Job } from './screens/sched/Job';
import { JobRun } from './screens/sched/JobRun';
import { Topology } from './screens/sched/Topology';
import { GatewaySection } from './screens/gateway/GatewaySection';
import { Overview } from './screens/overview/Overview';
import { CsiPlugin, CsiPlugins, CsiVolume, CsiVolumes, MeshAcl, MeshKv, SchedAcl, SecretsEngine } from './screens/adminScreens';

/** The OIDC provider's redirect back to the UI (api/oidc.ts `callbackRoute`). */
const OIDC_CALLBACK = '/secrets/auth/:mount/oidc/callback';

/** The app; `sections` are the services this origin reaches (from /ui/config.json). */
export function App({ sections }: { sections: Partial<Record<Section, string>> }) {
  const [session, setSession] = useState<Session | undefined>(currentSession);
  const location = useLocation();
  useEffect(() => onSessionChange(setSession), []);
  // Every sign-in lands on the overview (issue 31), whatever services this origin reaches.
  const home = '/overview';
  if (!session) {
    return (
      <Routes>
        <Route path="/login" element={<Login home={home} />} />
        {sections.secrets !== undefined && <Route path={OIDC_CALLBACK} element={<OidcCallback home={home} />} />}
        <Route path="*" element={<Navigate to="/login" replace state={{ from: location.pathname }} />} />
      </Routes>
    );
  }
  return (
    <Routes>
      {/* A popup opened by a signed-in tab has that tab's session: its callback still reports back. */}
      {sections.secrets !== undefined && <Route path={OIDC_CALLBACK} element={<OidcCallback home={home} />} />}
      <Route element={<Layout session={session} sections={sections} />}>
        <Route index element={<Navigate to={home} replace />} />
        <Route path="/login" element={<Navigate to={home} replace />} />
        <Route path="/overview" element={<Overview />} />
        {sections.secrets !== undefined && (
          <>
            <Route path="/secrets" element={<Mounts />} />
            <Route path="/secrets/kv/:mount/*" element={<KvRoute />} />
            <Route path="/secrets/create/:mount/*" element={<KvCreate />} />
            <Route path="/secrets/engines/:mount" element={<SecretsEngine />} />
            <Route path="/secrets/policies" element={<Policies />} />
            <Route path="/secrets/policies/:name" element={<PolicyEdit />} />
            <Route path="/secrets/policy-new" element={<PolicyEdit />} />
            <Route path="/secrets/seal" element={<Seal />} />
            <Route path="/secrets/auth" element={<AuthMethods />} />
            <Route path="/secrets/tokens" element={<Tokens />} />
            <Route path="/secrets/audit" element={<Audit />} />
            <Route path="/secrets/leases" element={<Leases />} />
            <Route path="/secrets/wrapping" element={<Wrapping />} />
            <Route path="/secrets/ha" element={<HaStatus />} />
          </>
        )}
        {sections.mesh !== undefined && (
          <>
            <Route path="/discovery" element={<Services />} />
            <Route path="/discovery/nodes" element={<MeshNodes />} />
            <Route path="/discovery/kv/*" element={<MeshKv />} />
            <Route path="/discovery/acl/:kind" element={<MeshAcl />} />
            <Route path="/discovery/acl/:kind/:id" element={<MeshAcl />} />
            <Route path="/discovery/acl-new/:kind" element={<MeshAcl creating />} />
          </>
        )}
        {sections.sched !== undefined && (
          <>
            <Route path="/scheduler" element={<Events />} />
            <Route path="/scheduler/nodes" element={<SchedNodes />} />
            <Route path="/scheduler/topology" element={<Topology />} />
            <Route path="/scheduler/allocations" element={<Allocations />} />
            <Route path="/scheduler/allocations/:id" element={<Allocation />} />
            <Route path="/scheduler/jobs" element={<Jobs />} />
            <Route path="/scheduler/jobs/:id" element={<Job />} />
            <Route path="/scheduler/jobs-run" element={<JobRun />} />
            <Route path="/scheduler/plugins" element={<CsiPlugins />} />
            <Route path="/scheduler/plugins/:id" element={<CsiPlugin />} />
            <Route path="/scheduler/volumes" element={<CsiVolumes />} />
            <Route path="/scheduler/volumes/:id" element={<CsiVolume />} />
            <Route path="/scheduler/acl/:kind" element={<SchedAcl />} />
            <Route path="/scheduler/acl/:kind/:id" element={<SchedAcl />} />
            <Route path="/scheduler/acl-new/:kind" element={<SchedAcl creating />} />
          </>
        )}
        {sections.gateway !== undefined && <Route path="/gateway/*" element={<GatewaySection />} />}
        <Route path="*" element={<p role="alert">No such page.</p>} />
      </Route>
    </Routes>
  );
}

/** A KV path ending in `/` (or empty) is a folder; anything else a secret. */
function KvRoute() {
  const location = useLocation();
  return location.pathname.endsWith('/') || /\/secrets\/kv\/[^/]+$/.test(location.pathname) ? <KvBrowser /> : <KvSecret />;
}
