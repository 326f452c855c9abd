/**
 * The header's namespace switcher of the section on screen: on the discovery screens the
 * discovery namespace (sent as `?ns=`, client.ts), shown only when the discovery service
 * has namespaces (its `GET /v1/namespaces` answers: the enterprise switch); elsewhere the
 * secrets namespace (`X-Secrets-Namespace`). A switch drops every cached reply, so the
 * screens reload in the new namespace.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Section } from '../api/client';
import { saveSession, type Session } from '../api/session';
import { NamespaceSwitcher } from './NamespaceSwitcher';

export function SectionNamespace({ session, sections, pathname }: { session: Session; sections: Partial<Record<Section, string>>; pathname: string }) {
  const queries = useQueryClient();
  const onDiscovery = sections.mesh !== undefined && pathname.startsWith('/discovery');
  const meshNamespaces = useQuery({
    queryKey: ['mesh', 'namespaces'],
    queryFn: () => api<Array<{ Name: string }>>('mesh', '/v1/namespaces'),
    enabled: onDiscovery,
    retry: false,
  });
  const switchTo = (next: Session) => {
    saveSession(next);
    queries.clear();
  };
  if (onDiscovery) {
    if (!meshNamespaces.data) return null;
    return (
      <NamespaceSwitcher
        key="mesh"
        id="mesh-ns"
        label="Discovery namespace"
        value={session.meshNamespace ?? ''}
        placeholder="default"
        choices={meshNamespaces.data.map((n) => n.Name)}
        onSwitch={(ns) => switchTo({ ...session, meshNamespace: ns })}
      />
    );
  }
  if (sections.secrets === undefined) return null;
  return (
    <NamespaceSwitcher
      key="secrets"
      id="ns"
      label="Namespace"
      value={session.namespace.replace(/\/$/, '')}
      placeholder="root"
      onSwitch={(ns) => switchTo({ ...session, namespace: ns ? `${ns}/` : '' })}
    />
  );
}
