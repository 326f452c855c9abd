/**
 * The traffic of each service this origin reaches, sampled by the page (issue 31 item 3):
 * its Prometheus metrics are read every 5 s while a chart is shown, and 15 minutes of
 * samples are kept for the tab (module state: leaving the overview and coming back keeps
 * the history). A service whose metrics this login may not read is asked no more.
 */
import { useEffect, useState } from 'react';
import { ApiError, hasSection, request, type Section } from '../../api/client';
import { parseSample, p99Ms, ratePerSecond, type MetricSample } from '../../api/metrics';

/** Each service's metrics endpoint, Prometheus text. */
const ENDPOINTS: Array<[Section, string, string]> = [
  ['secrets', 'Secrets', '/v1/sys/metrics?format=prometheus'],
  ['mesh', 'Discovery', '/v1/agent/metrics?format=prometheus'],
  ['sched', 'Scheduler', '/v1/metrics?format=prometheus'],
];

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

async function sampleOnce(section: Section, path: string): Promise<void> {
  if (refused.has(section)) return;
  const { url, init } = request(section, path);
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
  return ENDPOINTS.filter(([s]) => hasSection(s)).map(([section, label]) => {
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
      await Promise.all(ENDPOINTS.filter(([s]) => hasSection(s)).map(([s, , path]) => sampleOnce(s, path).catch(() => undefined)));
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
