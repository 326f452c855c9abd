/**
 * DNS queries/s of the discovery agent (issue 16 scope 7, one-off `mesh-dns`): an agent in
 * its own process (SQLite, ACLs on, DNS reading as the management token) with `instances`
 * healthy instances of service `web` on as many nodes; this process keeps `concurrency`
 * UDP queries in flight on one socket (each reply sends the next) for `seconds` per case,
 * after a one-second warm-up (EDNS with dig's 1,232-byte size on every query), and measures replies/s and the latency of each query.
 * Queries unanswered within 1 s count as lost and are sent again.
 */
import { createSocket } from 'node:dgram';
import { decode, encode, type OptAnswer, type RecordType } from 'dns-packet';
import { percentile } from './harness.js';
import { meshApi } from './mesh.js';
import { startServer } from './servers.js';

/** One measured case. */
export interface DnsCase {
  readonly name: string;
  readonly qtype: RecordType;
  readonly qname: string;
  /** Replies per second over the measured seconds. */
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly lost: number;
  /** Answer records in one reply (checked before the load). */
  readonly answers: number;
}

/** Settings of {@link measureDnsQueries}. */
export interface DnsBenchSettings {
  readonly seconds: number;
  readonly concurrency: number;
  readonly instances: number;
}

/** The EDNS record every query carries (dig's default 1,232-byte UDP size), so whole replies fit. */
const EDNS: OptAnswer = { type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };

/** Time a query may stay unanswered before it counts as lost, in ms. */
const LOST_MS = 1000;

/** Runs the cases (A and SRV of `web.service.cairn`, A of a node) and returns their figures. */
export async function measureDnsQueries(s: DnsBenchSettings): Promise<DnsCase[]> {
  const server = await startServer('mesh', { dns: true });
  try {
    for (let i = 0; i < s.instances; i++) {
      await meshApi(server, 'PUT', '/v1/catalog/register', {
        body: {
          Node: `bench-n${i}`,
          Address: `10.20.${Math.floor(i / 250)}.${(i % 250) + 1}`,
          Service: { ID: `web${i}`, Service: 'web', Port: 8000 + i },
          Check: { Node: `bench-n${i}`, CheckID: `service:web${i}`, Name: 'h', Status: 'passing', ServiceID: `web${i}` },
        },
      });
    }
    const address = String(await server.request({ type: 'dnsAddress' }, 10_000));
    const port = Number(address.split(':').pop());
    const cases: Array<[string, RecordType, string]> = [
      [`A, ${s.instances} instances`, 'A', 'web.service.cairn'],
      [`SRV, ${s.instances} instances`, 'SRV', 'web.service.cairn'],
      ['A of a node', 'A', 'bench-n0.node.cairn'],
    ];
    const out: DnsCase[] = [];
    for (const [name, qtype, qname] of cases) out.push({ name, qtype, qname, ...(await load(port, qname, qtype, s)) });
    return out;
  } finally {
    await server.close();
  }
}

/** The UDP load loop against 127.0.0.1:`port` for one question. */
async function load(port: number, qname: string, qtype: RecordType, s: DnsBenchSettings): Promise<Omit<DnsCase, 'name' | 'qtype' | 'qname'>> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const sentAt = new Map<number, number>();
  let nextId = 0;
  let measuring = false;
  let stopped = false;
  let answered = 0;
  let lost = 0;
  let answers = -1;
  const latencies: number[] = [];
  const sendOne = () => {
    if (stopped) return;
    const id = nextId;
    nextId = (nextId + 1) & 0xffff;
    sentAt.set(id, performance.now());
    socket.send(encode({ type: 'query', id, questions: [{ type: qtype, name: qname }], additionals: [EDNS] }), port, '127.0.0.1');
  };
  socket.on('message', (msg) => {
    const id = msg.readUInt16BE(0);
    const t0 = sentAt.get(id);
    if (t0 === undefined) return;
    sentAt.delete(id);
    if (answers < 0) answers = decode(msg).answers?.length ?? 0;
    if (measuring) {
      answered++;
      latencies.push(performance.now() - t0);
    }
    sendOne();
  });
  // Lost queries (a full socket buffer drops datagrams) are replaced so the load stays constant.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [id, t0] of sentAt) {
      if (now - t0 < LOST_MS) continue;
      sentAt.delete(id);
      if (measuring) lost++;
      sendOne();
    }
  }, 100);
  for (let i = 0; i < s.concurrency; i++) sendOne();
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, s.seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  stopped = true;
  clearInterval(sweep);
  socket.close();
  if (answers <= 0) throw new Error(`mesh-dns: ${qname} ${qtype} got no answer records`);
  return { perSec: answered / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), lost, answers };
}
