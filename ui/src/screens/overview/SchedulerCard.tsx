/**
 * The scheduler's card: its leader, client nodes ready and down, jobs running, pending and
 * failed, and blocked evaluations (`/v1/nodes`, `/v1/jobs?namespace=*`,
 * `/v1/evaluations?namespace=*&status=blocked`, blocking queries), linking to the jobs.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useBlocking } from '../../api/useBlocking';
import { errorState, StatusCard, type CardState } from '../../components/StatusCard';
import type { JobStub } from '../sched/jobTypes';

interface NodeStub {
  ID: string;
  Status: string;
  Drain: boolean;
}

/** A job none of whose allocations runs while some failed. */
function failedJob(j: JobStub): boolean {
  const groups = Object.values(j.JobSummary?.Summary ?? {});
  return groups.some((g) => g.Failed + g.Lost > 0) && groups.every((g) => g.Running === 0);
}

export function SchedulerCard() {
  const nodes = useBlocking<NodeStub[]>('/v1/nodes', 'sched');
  const jobs = useBlocking<JobStub[]>('/v1/jobs?namespace=*', 'sched');
  const blocked = useBlocking<unknown[]>('/v1/evaluations?namespace=*&status=blocked', 'sched');
  const leader = useQuery({ queryKey: ['overview', 'sched-leader'], queryFn: () => api<string>('sched', '/v1/status/leader'), refetchInterval: 5000 });
  let state: CardState = 'unknown';
  let sentence = 'Not reached yet.';
  const error = nodes.error ?? jobs.error;
  if (error) [state, sentence] = errorState(error);
  else if (nodes.data && jobs.data) {
    const ready = nodes.data.filter((n) => n.Status === 'ready').length;
    const down = nodes.data.filter((n) => n.Status === 'down' || n.Status === 'disconnected').length;
    const count = (s: string) => jobs.data!.filter((j) => j.Status === s).length;
    const failed = jobs.data.filter(failedJob).length;
    const waiting = blocked.data?.length ?? 0;
    state = down > 0 || failed > 0 ? 'bad' : waiting > 0 || !leader.data || (nodes.data.length > 0 && ready === 0) ? 'warn' : 'ok';
    sentence =
      `${ready} of ${nodes.data.length} nodes ready${down ? `, ${down} down` : ''}; jobs ${count('running')} running, ${count('pending')} pending, ${failed} failed; ` +
      `${waiting} blocked evaluations; ${leader.data ? `leader ${leader.data}` : 'no leader known'}.`;
  }
  return <StatusCard id="scheduler" title="Scheduler" state={state} sentence={sentence} to="/scheduler/jobs" linkText="Jobs" />;
}
