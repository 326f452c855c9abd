/**
 * The page after sign-in (issue 31 item 1): one card per service this origin reaches, each
 * answering "is it healthy?" in a sentence and updated live — the discovery service's and
 * the scheduler's through their blocking queries (a failing check shows within a second),
 * the secrets service and the gateway, which have none, every 2 and 5 s — and below them
 * each service's requests per second and p99 latency (TrafficCharts.tsx).
 */
import { lazy, Suspense } from 'react';
import { hasSection } from '../../api/client';
import { Loading } from '../../components/Notice';
import { DiscoveryCard } from './DiscoveryCard';
import { GatewayCard } from './GatewayCard';
import { SchedulerCard } from './SchedulerCard';
import { SecretsCard } from './SecretsCard';

/** uPlot and the charts come with their own chunk, on first use (the page's first load stays small). */
const TrafficCharts = lazy(() => import('./TrafficCharts'));

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
      {(hasSection('secrets') || hasSection('mesh') || hasSection('sched')) && (
        <section aria-labelledby="traffic-h">
          <h2 id="traffic-h">Traffic, last 15 minutes</h2>
          <Suspense fallback={<Loading />}>
            <TrafficCharts />
          </Suspense>
        </section>
      )}
    </>
  );
}
