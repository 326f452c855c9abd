/**
 * The screen of a mounted database, transit or PKI engine (`/secrets/engines/:mount/*`),
 * chosen by the mount's type in `GET /v1/sys/mounts`; loaded on first use (its own chunk).
 */
import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { useParams } from 'react-router';
import { api } from '../../../api/client';
import { ErrorNotice, Loading } from '../../../components/Notice';
import { SecretsNav } from '../SecretsNav';
import { Database } from './Database';
import { Pki } from './Pki';
import { Transit } from './Transit';

/** The engine types with a screen of their own. */
const SCREENS: Readonly<Record<string, ComponentType<{ mount: string }>>> = { database: Database, transit: Transit, pki: Pki };

export function EngineScreen() {
  const mount = useParams().mount ?? '';
  const q = useQuery({
    // Not Mounts.tsx's key: that query keeps the sorted entries, this one the table by path.
    queryKey: ['secrets', 'mounts', 'by-path'],
    queryFn: async () => (await api<{ data?: Record<string, { type: string }> }>('secrets', '/v1/sys/mounts')).data ?? {},
  });
  const type = q.data?.[`${mount}/`]?.type;
  const Screen = type ? SCREENS[type] : undefined;
  return (
    <>
      <SecretsNav />
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && !Screen && <p role="alert">No database, transit or PKI engine is mounted at {mount}/.</p>}
      {Screen && <Screen mount={mount} />}
    </>
  );
}
