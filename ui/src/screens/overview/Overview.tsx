/**
 * The page after sign-in (issue 31 item 1): one card per service this origin reaches, each
 * answering "is it healthy?" in a sentence and updated live — the discovery service's and
 * the scheduler's through their blocking queries (a failing check shows within a second),
 * the secrets service and the gateway, which have none, every 2 and 5 s.
 */
import { hasSection } from '../../api/client';
import { DiscoveryCard } from './DiscoveryCard';
import { GatewayCard } from './GatewayCard';
import { SchedulerCard } from './SchedulerCard';
import { SecretsCard } from './SecretsCard';

export function Overview() {
  return (
    <>
      <h1>Overview</h1>
      <div className="cards">
        {hasSection('secrets') && <SecretsCard />}
        {hasSection('mesh') && <DiscoveryCard />}
        {hasSection('sched') && <SchedulerCard />}
        {hasSection('gateway') && <GatewayCard />}
      </div>
    </>
  );
}
