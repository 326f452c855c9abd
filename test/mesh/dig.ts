/**
 * Asks a DNS server with `dig` (Debian's dnsutils, installed by .ci/run) and parses what it
 * prints: the status, the header flags and the records of each section.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One record as dig prints it: `name ttl class type data…`. */
export interface DigRecord {
  readonly name: string;
  readonly ttl: number;
  readonly type: string;
  /** The record data as printed (`10.0.0.1`, `1 1 8000 n1.node.dc1.cairn.`). */
  readonly data: string;
}

/** What dig printed. */
export interface DigResult {
  /** `NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `FORMERR`…; empty when no reply came. */
  readonly status: string;
  /** Header flags (`qr`, `aa`, `rd`, `ra`, `tc`). */
  readonly flags: readonly string[];
  readonly answer: readonly DigRecord[];
  readonly authority: readonly DigRecord[];
  readonly additional: readonly DigRecord[];
  /** The whole output, for failure messages. */
  readonly text: string;
}

/**
 * `dig @127.0.0.1 -p <port> <name> <type> <options…>` with one try and a 3 s timeout
 * (override with options such as `+tcp`, `+noedns`, `+ignore`).
 */
export async function dig(port: number, name: string, type = 'A', options: readonly string[] = []): Promise<DigResult> {
  const args = ['@127.0.0.1', '-p', String(port), name, type, '+tries=1', '+time=3', '+nocookie', ...options];
  const { stdout } = await run('dig', args).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return parseDig(stdout);
}

/** Parses dig's default output. */
function parseDig(text: string): DigResult {
  const status = /status: ([A-Z]+)/.exec(text)?.[1] ?? '';
  const flags = (/;; flags: ([a-z ]*);/.exec(text)?.[1] ?? '').split(' ').filter(Boolean);
  const sections: Record<string, DigRecord[]> = { ANSWER: [], AUTHORITY: [], ADDITIONAL: [] };
  let current: DigRecord[] | undefined;
  for (const line of text.split('\n')) {
    const head = /^;; (ANSWER|AUTHORITY|ADDITIONAL) SECTION:/.exec(line);
    if (head) {
      current = sections[head[1]!];
      continue;
    }
    if (line.trim() === '' || line.startsWith(';')) {
      if (line.trim() === '') current = undefined;
      continue;
    }
    const [name, ttl, , type, ...data] = line.split(/\s+/);
    current?.push({ name: name!, ttl: Number(ttl), type: type!, data: data.join(' ') });
  }
  return { status, flags, answer: sections.ANSWER!, authority: sections.AUTHORITY!, additional: sections.ADDITIONAL!, text };
}
