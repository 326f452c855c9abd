/**
 * The gateway section: its own login (GatewayLogin.tsx) unless this tab holds a gateway
 * token, then the sub-navigation and the screens: workers and sessions, scopes, users,
 * roles, host catalogs (with their hosts and host sets), targets. On a controller serving
 * its own section (no other service reached), the UI's login token is the gateway's.
 * roles, credential stores. On a controller serving its own section (no other service reached), the UI's
 * login token is the gateway's.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { api, ApiError, gatewayOnly } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { currentSession, saveSession } from '../../api/session';
import { later } from '../adminScreens';
import { GatewayLogin } from './GatewayLogin';
import { Sessions } from './Sessions';

const Scopes = later(() => import('./Scopes'), 'Scopes');
const Users = later(() => import('./Users'), 'Users');
const Roles = later(() => import('./Roles'), 'Roles');
const RoleDetail = later(() => import('./Roles'), 'RoleDetail');
const HostCatalogs = later(() => import('./HostCatalogs'), 'HostCatalogs');
const HostCatalogDetail = later(() => import('./HostCatalogs'), 'HostCatalogDetail');
const Targets = later(() => import('./Targets'), 'Targets');
const TargetDetail = later(() => import('./Targets'), 'TargetDetail');
const CredentialStores = later(() => import('./CredentialStores'), 'CredentialStores');

export function GatewaySection() {
  const [hasToken, setHasToken] = useState(Boolean(currentSession()?.gatewayToken));
  useEffect(() => {
    const s = currentSession();
    if (!s || s.gatewayToken || !gatewayOnly()) return;
    saveSession({ ...s, gatewayToken: s.token });
    setHasToken(true);
  }, []);
  if (!hasToken) return <GatewayLogin onSet={() => setHasToken(true)} />;
  return (
    <>
      <GatewayNav onSignOut={() => setHasToken(false)} />
      <Routes>
        <Route index element={<Sessions />} />
        <Route path="scopes" element={<Scopes />} />
        <Route path="users" element={<Users />} />
        <Route path="roles" element={<Roles />} />
        <Route path="roles/:id" element={<RoleDetail />} />
        <Route path="host-catalogs" element={<HostCatalogs />} />
        <Route path="host-catalogs/:id" element={<HostCatalogDetail />} />
        <Route path="targets" element={<Targets />} />
        <Route path="targets/:id" element={<TargetDetail />} />
        <Route path="credential-stores" element={<CredentialStores />} />
        <Route path="*" element={<p role="alert">No such page.</p>} />
      </Routes>
    </>
  );
}

/**
 * The sub-navigation, who the gateway calls go as, and the way back to the gateway login.
 * Leaving a password login deletes its auth token on the server (`DELETE
 * /v1/auth-tokens/{id}`, the reference's logout); a static token is only forgotten.
 */
function GatewayNav({ onSignOut }: { onSignOut: () => void }) {
  const queries = useQueryClient();
  const session = currentSession();
  const [error, setError] = useState<unknown>();
  const signOut = async () => {
    setError(undefined);
    const { gatewayToken = '', gatewayVia: _v, ...rest } = currentSession()!;
    const id = /^(at_[0-9A-Za-z]{10})_/.exec(gatewayToken)?.[1];
    try {
      if (id) await api('gateway', `/v1/auth-tokens/${id}`, { method: 'DELETE' });
    } catch (err) {
      // An ended token is gone already; anything else is shown and the login kept.
      if (!(err instanceof ApiError && (err.status === 401 || err.status === 404))) return setError(err);
    }
    saveSession(rest);
    queries.removeQueries({ queryKey: ['gateway'] });
    onSignOut();
  };
  return (
    <nav aria-label="Gateway" className="sub">
      <NavLink to="/gateway" end>
        Workers and sessions
      </NavLink>
      <NavLink to="/gateway/scopes">Scopes</NavLink>
      <NavLink to="/gateway/users">Users</NavLink>
      <NavLink to="/gateway/roles">Roles</NavLink>
      <NavLink to="/gateway/host-catalogs">Host catalogs</NavLink>
      <NavLink to="/gateway/targets">Targets</NavLink>
      <NavLink to="/gateway/credential-stores">Credential stores</NavLink>
      {!gatewayOnly() && (
        <span className="muted">
          Gateway: {session?.gatewayVia ?? 'token'}{' '}
          <button type="button" onClick={() => void signOut()}>
            Change gateway login
          </button>
        </span>
      )}
      <ErrorNotice error={error} />
    </nav>
  );
}
