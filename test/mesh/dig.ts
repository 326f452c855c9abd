/**
 * Asks a DNS server with `dig` (Debian's dnsutils, installed by .ci/run) and parses what it
 * prints: the status, the header flags and the records of each section. A dig that fails
 * (not installed, no reply) fails the test; {@link digNoReply} is for a question that must go unanswered.
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
  /** `NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `FORMERR`… (a reply always has one). */
  readonly status: string;
  /** Header flags (`qr`, `aa`, `rd`, `ra`, `tc`). */
  readonly flags: readonly string[];
  readonly answer: readonly DigRecord[];
  readonly authority: readonly DigRecord[];
  readonly additional: readonly DigRecord[];
  /** The whole output, for failure messages. */
  readonly text: string;
}

/** dig's exit status when no reply came (timeout, connection refused or closed): `no servers could be reached`. */
const NO_REPLY_EXIT = 9;

/** `dig`'s output and exit status; a dig that cannot run (not installed) rejects. */
async function runDig(port: number, name: string, type: string, options: readonly string[]): Promise<{ code: number; text: string }> {
  const args = ['@127.0.0.1', '-p', String(port), name, type, '+tries=1', '+time=3', '+nocookie', ...options];
  try {
    return { code: 0, text: (await run('dig', args)).stdout };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    // A number: dig ran and exited non-zero; a string (ENOENT …): it never ran.
    if (typeof e.code !== 'number') throw new Error(`dig ${args.join(' ')} could not run: ${e.message}`);
    return { code: e.code, text: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/**
 * `dig @127.0.0.1 -p <port> <name> <type> <options…>` with one try and a 3 s timeout
 * (override with options such as `+tcp`, `+noedns`, `+ignore`). Resolves with the reply
 * whatever its status (`NXDOMAIN` and an empty `NOERROR` are answers).
 * @throws when dig cannot run, got no reply, or printed no status (a failure is never an empty answer).
 */
export async function dig(port: number, name: string, type = 'A', options: readonly string[] = []): Promise<DigResult> {
  const { code, text } = await runDig(port, name, type, options);
  const result = parseDig(text);
  if (code !== 0 || result.status === '') throw new Error(`dig ${name} ${type} ${options.join(' ')} failed (exit ${code}):\n${text}`);
  return result;
}

/**
 * Like {@link dig}, for a question the server must leave unanswered: resolves with dig's
 * output when dig ran and reported no reply (exit 9).
 * @throws when a reply came, or dig failed otherwise (not installed, bad arguments).
 */
export async function digNoReply(port: number, name: string, type = 'A', options: readonly string[] = []): Promise<string> {
  const { code, text } = await runDig(port, name, type, options);
  if (code !== NO_REPLY_EXIT)
    throw new Error(`dig ${name} ${type} ${options.join(' ')}: expected no reply (exit ${NO_REPLY_EXIT}), got exit ${code}:\n${text}`);
  return text;
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
