/**
 * Scheduler CSI volume benchmarks (issue 7: "list with a filter over 100,000 volumes, first
 * page and a deep page (latency must not grow with the page's depth), and register
 * throughput"), each on a fresh scheduler process (`sched` server kind with `csi`: a hostpath
 * plugin in the server process, configured and healthy):
 *
 * - `sched-volume-list` (one-off): 100,000 volume rows written into the server's state in
 *   batches (IPC `seedVolumes`), then `GET /v1/volumes?type=csi&per_page=100` sequentially
 *   on one keep-alive connection, four cases interleaved request by request: with
 *   `filter=Parameters.tier == "gold"` (a quarter of the volumes) and without, each from the
 *   first page and from a `next_token` 90 % into the list. Latency p50/p99 per case.
 * - `sched-volume-register` (one-off): 1,000 volumes made in the plugin first (IPC
 *   `pluginVolumes`), then autocannon `PUT /v1/volume/csi/reg-<n>` with a new volume ID per
 *   request (`ExternalID` cycling over the plugin's volumes), so each request is a fresh
 *   register: ACL, decode, `ValidateVolumeCapabilities` over the plugin's unix socket, one
 *   durable write. Rounds like the table's; req/s and p50/p99 per round.
 */
import { Agent, request } from 'undici';
import { api, median, quantileOf as quantile, runLoad } from './harness.js';
import { seededVolumeId, type SeedResult } from './sched-volume-seed.js';
import { startServer, type BenchServer } from './servers.js';

/** The filter of the filtered cases: selects every 4th seeded volume. */
export const VOLUME_LIST_FILTER = 'Parameters.tier == "gold"';

/** Settings of {@link measureVolumeList}. */
export interface VolumeListSettings {
  /** Volume rows to seed (issue 7: 100,000). */
  readonly volumes: number;
  /** Measured requests per case. */
  readonly requests: number;
  /** Unmeasured requests per case first. */
  readonly warmup: number;
  readonly perPage: number;
  /** Where the deep page starts, as a fraction of the list (0.9: at volume 90,000 of 100,000). */
  readonly deepFraction: number;
  /** Rows per seeding transaction. */
  readonly seedBatch: number;
}

/** Latency of one case, in ms. */
interface ListCaseResult {
  readonly name: string;
  /** The request path (under the server URL). */
  readonly path: string;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** Reply size in bytes (of the last reply). */
  readonly bytes: number;
}

/** What {@link measureVolumeList} measured. */
export interface VolumeListResult {
  readonly seeded: SeedResult;
  readonly cases: readonly ListCaseResult[];
  /** Server RSS and V8 heap in use after seeding, in bytes. */
  readonly rss: number;
  readonly heapUsed: number;
}

/** The paths of the four cases over `s`. */
function listCases(s: VolumeListSettings): { name: string; path: string; firstId: (ids: string[]) => boolean }[] {
  const deepIndex = Math.floor(s.volumes * s.deepFraction);
  const deepToken = `default.${seededVolumeId(deepIndex)}`;
  const base = `/v1/volumes?type=csi&per_page=${s.perPage}`;
  const filter = `&filter=${encodeURIComponent(VOLUME_LIST_FILTER)}`;
  const next = `&next_token=${encodeURIComponent(deepToken)}`;
  const gold = (id: string) => Number(id.slice('bench-vol-'.length)) % 4 === 0;
  return [
    { name: 'filter, first page', path: `${base}${filter}`, firstId: (ids) => ids[0] === seededVolumeId(0) && ids.every(gold) },
    {
      name: `filter, deep page (next_token ${deepToken})`,
      path: `${base}${filter}${next}`,
      firstId: (ids) => ids[0] >= seededVolumeId(deepIndex) && ids.every(gold),
    },
    { name: 'no filter, first page', path: base, firstId: (ids) => ids[0] === seededVolumeId(0) },
    { name: `no filter, deep page (next_token ${deepToken})`, path: `${base}${next}`, firstId: (ids) => ids[0] === seededVolumeId(deepIndex) },
  ];
}

/**
 * Seeds a fresh scheduler process and measures the list cases (module doc). Every reply is
 * checked: 200, a full page of the right volumes, an `X-Sched-NextToken`.
 * @throws when seeding, a request or a check fails.
 */
export async function measureVolumeList(s: VolumeListSettings): Promise<VolumeListResult> {
  const server = await startServer('sched', { csi: true });
  const dispatcher = new Agent({ connections: 1 });
  try {
    const seeded = (await server.request({ type: 'seedVolumes', count: s.volumes, batch: s.seedBatch }, 30 * 60_000)) as SeedResult;
    const stats = await server.stats();
    const cases = listCases(s);
    const samples = cases.map(() => [] as number[]);
    const bytes = cases.map(() => 0);
    const once = async (k: number): Promise<number> => {
      const c = cases[k];
      const t0 = performance.now();
      const res = await request(`${server.url}${c.path}`, { headers: { 'X-Sched-Token': server.token! }, dispatcher });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`sched-volume-list ${c.name}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
      const ids = (JSON.parse(text) as { ID: string }[]).map((v) => v.ID);
      if (ids.length !== s.perPage || !c.firstId(ids) || !res.headers['x-sched-nexttoken']) {
        throw new Error(
          `sched-volume-list ${c.name}: unexpected page (${ids.length} items from ${ids[0]}, next token ${String(res.headers['x-sched-nexttoken'])})`,
        );
      }
      bytes[k] = text.length;
      return ms;
    };
    for (let i = 0; i < s.warmup; i++) for (let k = 0; k < cases.length; k++) await once(k);
    // Interleaved request by request, so drift of the machine's speed hits every case alike.
    for (let i = 0; i < s.requests; i++) for (let k = 0; k < cases.length; k++) samples[k].push(await once(k));
    return {
      seeded,
      rss: stats.rss,
      heapUsed: stats.heapUsed,
      cases: cases.map((c, k) => {
        const xs = [...samples[k]].sort((a, b) => a - b);
        return {
          name: c.name,
          path: c.path,
          p50Ms: quantile(xs, 0.5),
          p99Ms: quantile(xs, 0.99),
          meanMs: xs.reduce((a, b) => a + b, 0) / xs.length,
          maxMs: xs[xs.length - 1],
          bytes: bytes[k],
        };
      }),
    };
  } finally {
    await dispatcher.close();
    await server.close();
  }
}

/** Settings of {@link measureVolumeRegister}. */
export interface VolumeRegisterSettings {
  readonly rounds: number;
  /** Seconds per round. */
  readonly seconds: number;
  /** Seconds of unmeasured load first. */
  readonly warmupSeconds: number;
  readonly connections: number;
  /** Volumes made in the plugin for the registers to point at. */
  readonly pluginVolumes: number;
}

/** One round of {@link measureVolumeRegister}. */
interface RegisterRound {
  readonly reqPerSec: number;
  readonly total: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** What {@link measureVolumeRegister} measured. */
export interface VolumeRegisterResult {
  readonly rounds: readonly RegisterRound[];
  readonly medianReqPerSec: number;
  /** Volumes registered in all (warm-up and check included). */
  readonly registered: number;
}

/** The register body of volume `id` pointing at plugin volume `externalId`. */
function registerBody(id: string, externalId: string): string {
  return JSON.stringify({
    Volumes: [
      {
        ID: id,
        Name: id,
        PluginID: 'hostpath',
        ExternalID: externalId,
        RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }],
      },
    ],
  });
}

/**
 * Runs the register throughput measurement on a fresh scheduler process with a hostpath
 * plugin (module doc). @throws on any non-2xx reply, error or timeout, or a failed check.
 */
export async function measureVolumeRegister(s: VolumeRegisterSettings): Promise<VolumeRegisterResult> {
  const server: BenchServer = await startServer('sched', { csi: true });
  try {
    const externalIds = (await server.request({ type: 'pluginVolumes', count: s.pluginVolumes }, 10 * 60_000)) as string[];
    if (externalIds.length !== s.pluginVolumes) throw new Error(`sched-volume-register: the plugin made ${externalIds.length} of ${s.pluginVolumes} volumes`);
    // Check: one register in full, and a refusal for a volume the plugin does not have.
    const ok = await api(server, 'PUT', '/v1/volume/csi/reg-check', {
      body: JSON.parse(registerBody('reg-check', externalIds[0])),
      tokenHeader: 'X-Sched-Token',
    });
    const v = (ok.json as { Volumes: { ID: string; ExternalID: string; Schedulable: boolean; ControllersHealthy: number }[] }).Volumes[0];
    if (v.ID !== 'reg-check' || v.ExternalID !== externalIds[0] || !v.Schedulable || v.ControllersHealthy !== 1)
      throw new Error(`sched-volume-register check: ${ok.text.slice(0, 300)}`);
    await api(server, 'PUT', '/v1/volume/csi/reg-ghost', {
      body: JSON.parse(registerBody('reg-ghost', 'no-such-volume')),
      tokenHeader: 'X-Sched-Token',
      expect: 404,
    });
    let n = 0;
    const requests = [
      {
        method: 'PUT',
        path: '/v1/volume/csi/reg-0',
        headers: { 'X-Sched-Token': server.token!, 'content-type': 'application/json' },
        // Rebuilt per request: a new volume ID each time (the counter continues across rounds).
        setupRequest: (req: { path?: string; body?: string | Buffer }) => {
          const i = n++;
          const id = `reg-${i}`;
          req.path = `/v1/volume/csi/${id}`;
          req.body = registerBody(id, externalIds[i % externalIds.length]);
          return req;
        },
      },
    ];
    let completed = 0;
    const run = async (seconds: number): Promise<RegisterRound> => {
      const { raw, p50Ms, p99Ms } = await runLoad(server.url, requests, { seconds, connections: s.connections });
      if (raw.non2xx > 0 || raw.errors > 0 || raw.timeouts > 0) {
        throw new Error(
          `sched-volume-register: ${raw.non2xx} non-2xx, ${raw.errors} errors, ${raw.timeouts} timeouts; status codes ${JSON.stringify(raw.statusCodeStats)}`,
        );
      }
      completed += raw.requests.total;
      return { reqPerSec: raw.requests.average, total: raw.requests.total, p50Ms, p99Ms };
    };
    if (s.warmupSeconds > 0) await run(s.warmupSeconds);
    const rounds: RegisterRound[] = [];
    for (let r = 0; r < s.rounds; r++) rounds.push(await run(s.seconds));
    const listed = await api(server, 'GET', '/v1/volumes?type=csi&prefix=reg-', { tokenHeader: 'X-Sched-Token' });
    // Each answered register added one volume; requests cut at the end of a round may have too.
    const registered = (listed.json as unknown[]).length;
    if (registered < completed + 1 || registered > n + 1)
      throw new Error(`sched-volume-register: ${registered} volumes listed after ${completed + 1} answered registers (${n + 1} sent)`);
    return { rounds, medianReqPerSec: median(rounds.map((r) => r.reqPerSec)), registered };
  } finally {
    await server.close();
  }
}
