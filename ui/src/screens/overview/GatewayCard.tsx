/**
 * The access gateway's card: workers and active sessions (`GET /v1/workers`,
 * `/v1/sessions?scope_id=global&recursive=true`, every 5 s) with the gateway token of
 * the gateway screens; without one it says to sign in there.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { currentSession } from '../../api/session';
import { errorState, StatusCard, type CardState } from '../../components/StatusCard';

interface Worker {
  name: string;
  state?: string;
}

export function GatewayCard() {
  const signedIn = currentSession()?.gatewayToken !== undefined;
  const workers = useQuery({
    queryKey: ['overview', 'gateway-workers'],
    queryFn: () => api<{ items?: Worker[] }>('gateway', '/v1/workers').then((r) => r.items ?? []),
    refetchInterval: 5000,
    enabled: signedIn,
  });
  const sessions = useQuery({
    queryKey: ['overview', 'gateway-sessions'],
    queryFn: () => api<{ items?: { status: string }[] }>('gateway', '/v1/sessions?scope_id=global&recursive=true').then((r) => r.items ?? []),
    refetchInterval: 5000,
    enabled: signedIn,
  });
  let state: CardState = 'unknown';
  let sentence = 'Not reached yet.';
  if (!signedIn) sentence = 'Sign in to the gateway to see its workers and sessions.';
  else if (workers.error) [state, sentence] = errorState(workers.error);
  else if (workers.data) {
    const active = (sessions.data ?? []).filter((s) => s.status === 'active').length;
    state = workers.data.length === 0 ? 'warn' : 'ok';
    sentence = `${workers.data.length} workers${workers.data.length === 0 ? ' (no session can connect)' : ''}; ${active} active sessions.`;
  }
  return (
    <StatusCard
      id="gateway"
      title="Gateway"
      state={state}
      sentence={sentence}
      to="/gateway"
      linkText={signedIn ? 'Workers and sessions' : 'Sign in to the gateway'}
    />
  );
}
