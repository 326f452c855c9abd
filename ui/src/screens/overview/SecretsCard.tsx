/**
 * The secrets service's card: sealed or not, and its HA role (`GET /v1/sys/health` with
 * `sealedcode=200&uninitcode=200` so a sealed server's state is a reply, not an error;
 * `GET /v1/sys/leader`), every 2 s.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { errorState, StatusCard, type CardState } from '../../components/StatusCard';
import type { SysHealth as Health, SysLeader as Leader } from '../../api/secrets-sys';

/** State and sentence from the health and leader replies. */
function describe(h: Health | undefined, l: Leader | undefined): [CardState, string] {
  if (!h) return ['unknown', 'Not reached yet.'];
  if (!h.initialized) return ['bad', 'Not initialised: initialise it to store secrets.'];
  if (h.sealed) return ['bad', 'Sealed: nothing can be read until it is unsealed.'];
  if (!l?.ha_enabled) return ['ok', `Unsealed, a single server (version ${h.version}).`];
  if (l.is_self) return ['ok', 'Unsealed; this server is the active node.'];
  const active = l.leader_address ? `the active node is ${l.leader_address}` : 'no server holds the active lock';
  return [l.leader_address ? 'ok' : 'warn', `Unsealed; this server is a ${h.performance_standby ? 'performance standby' : 'standby'} and ${active}.`];
}

export function SecretsCard() {
  const health = useQuery({
    queryKey: ['overview', 'secrets-health'],
    queryFn: () => api<Health>('secrets', '/v1/sys/health?standbyok=true&perfstandbyok=true&sealedcode=200&uninitcode=200'),
    refetchInterval: 2000,
  });
  const leader = useQuery({
    queryKey: ['overview', 'secrets-leader'],
    queryFn: () => api<Leader>('secrets', '/v1/sys/leader'),
    refetchInterval: 2000,
    enabled: health.data !== undefined && !health.data.sealed,
  });
  const [state, sentence] = health.error ? errorState(health.error) : describe(health.data, leader.data);
  return (
    <StatusCard
      id="secrets"
      title="Secrets"
      state={state}
      sentence={sentence}
      to={health.data?.sealed ? '/secrets/seal' : '/secrets/ha'}
      linkText="Seal and HA status"
    />
  );
}
