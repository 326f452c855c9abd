/**
 * The traffic of each service this origin reaches, sampled by the page (issue 31 item 3):
 * its Prometheus metrics are read every 5 s while a chart is shown, and 15 minutes of
 * samples are kept for the tab (module state: leaving the overview and coming back keeps
 * the history). A service whose metrics this login may not read is asked no more.
 */
import { useEffect, useState } from 'react';
import { ApiError, gatewayMetricsPath, hasSection, request, type Section } from '../../api/client';
import { parseSample, p99Ms, ratePerSecond, type MetricSample } from '../../api/metrics';

/** A service's metrics endpoint (Prometheus text), when this origin reaches it. */
interface Endpoint {
  readonly section: Section;
  readonly label: string;
  readonly call: () => { url: string; init: RequestInit } | undefined;
}

const api = (section: Section, path: string) => () => (hasSection(section) ? request(section, path) : undefined);

/** The gateway serves its metrics on its ops listener only, without a token (kernel/http/ui.ts). */
const ENDPOINTS: Endpoint[] = [
  { section: 'secrets', label: 'Secrets', call: api('secrets', '/v1/sys/metrics?format=prometheus') },
  { section: 'mesh', label: 'Discovery', call: api('mesh', '/v1/agent/metrics?format=prometheus') },
  { section: 'sched', label: 'Scheduler', call: api('sched', '/v1/metrics?format=prometheus') },
  { section: 'gateway', label: 'Gateway', call: () => (gatewayMetricsPath() ? { url: gatewayMetricsPath()!, init: {} } : undefined) },
];

const reached = () => ENDPOINTS.filter((e) => e.call() !== undefined);

/** How often the page samples (ms) and how long it keeps samples (ms). */
const EVERY_MS = 5000;
const KEEP_MS = 15 * 60_000;

/** One service's figures, one point per interval between two samples. */
export interface Traffic {
  readonly label: string;
  /** End of each interval, epoch seconds. */
  readonly times: number[];
  readonly rps: number[];
  /** null: no request in the interval. */
  readonly p99: (number | null)[];
  /** Why it is not sampled (a refusal), if so. */
  readonly error?: string;
}

const samples = new Map<Section, MetricSample[]>();
const refused = new Map<Section, string>();

async function sampleOnce({ section, call }: Endpoint): Promise<void> {
  const target = call();
  if (refused.has(section) || !target) return;
  const { url, init } = target;
  const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), Accept: 'text/plain' } });
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    refused.set(section, new ApiError(res.status, [text.trim() || `HTTP ${res.status}`]).message);
    return;
  }
  if (!res.ok) return;
  const now = Date.now();
  const list = samples.get(section) ?? [];
  list.push(parseSample(text, now));
  while (list.length > 0 && list[0]!.at < now - KEEP_MS) list.shift();
  samples.set(section, list);
}

/** The figures of the kept samples. */
function figures(): Traffic[] {
  return reached().map(({ section, label }) => {
    const list = samples.get(section) ?? [];
    const pairs = list.slice(1).map((b, i) => [list[i]!, b] as const);
    return {
      label,
      times: pairs.map(([, b]) => Math.round(b.at / 1000)),
      rps: pairs.map(([a, b]) => ratePerSecond(a, b)),
      p99: pairs.map(([a, b]) => p99Ms(a, b)),
      ...(refused.has(section) && { error: refused.get(section)! }),
    };
  });
}

/** The services' traffic, sampled every 5 s while mounted. */
export function useTraffic(): Traffic[] {
  const [traffic, setTraffic] = useState<Traffic[]>(figures);
  useEffect(() => {
    let stopped = false;
    const tick = async () => {
      await Promise.all(reached().map((e) => sampleOnce(e).catch(() => undefined)));
      if (!stopped) setTraffic(figures());
    };
    void tick();
    const timer = setInterval(() => void tick(), EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return traffic;
}
