/**
 * The wrk load generator (Debian's `wrk`, `-t1`): used instead of autocannon when it is
 * installed and a round's requests can be expressed to it (static templates, or one
 * template with a `distinctPath`). One Lua script per run, written to a temp file: the
 * request list is formatted once (`wrk.format`), a `distinctPath` is formatted per
 * request with a counter that continues across runs, and `done()` prints one
 * `CAIRN_WRK {json}` line with the totals this module reads.
 *
 * wrk counts a reply with status > 399 as a `status` error; its latency histogram has 1 µs
 * resolution. A `setupRequest` function (autocannon's hook) cannot be translated: such
 * runs stay on autocannon (`wrkCanRun`).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestTemplate } from './harness.js';

let installed: boolean | undefined;

/** Whether a `wrk` binary is on PATH (looked up once). */
export function wrkInstalled(): boolean {
  if (installed === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      installed = true;
    } catch (err) {
      // `wrk --version` prints its usage and exits 1; only a missing binary is ENOENT.
      installed = (err as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  }
  return installed;
}

/** Whether `requests` can be sent by wrk: no `setupRequest`, and a `distinctPath` only as the single template. */
export function wrkCanRun(requests: readonly RequestTemplate[]): boolean {
  if (requests.length === 0 || requests.some((r) => r.setupRequest !== undefined)) return false;
  return requests.length === 1 || requests.every((r) => r.distinctPath === undefined);
}

/** What one wrk run measured. */
export interface WrkResult {
  readonly requests: number;
  /** Seconds wrk measured for (its `summary.duration`). */
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Replies with status > 399. */
  readonly statusErrors: number;
  /** connect + read + write errors. */
  readonly socketErrors: number;
  readonly timeouts: number;
}

/** A Lua string literal holding `s` byte for byte (latin1/utf-8 bytes as `\ddd` escapes where needed). */
function lua(s: string | Buffer | undefined): string {
  if (s === undefined) return 'nil';
  const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  let out = '"';
  for (const c of bytes) out += c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? String.fromCharCode(c) : `\\${c}`;
  return `${out}"`;
}

function luaHeaders(h: Record<string, string> | undefined): string {
  return `{${Object.entries(h ?? {})
    .map(([k, v]) => `[${lua(k)}]=${lua(v)}`)
    .join(',')}}`;
}

/** Counter of `distinctPath` requests, continued across runs so keys stay distinct for the whole bench run. */
let distinctCounter = 0;

/** The Lua script for `requests` (see the module doc). */
function script(requests: readonly RequestTemplate[], counterStart: number): string {
  const one = requests[0];
  const build =
    one.distinctPath !== undefined
      ? `local method, pre, post, headers, body = ${lua(one.method ?? 'GET')}, ${lua(one.distinctPath.split('{n}')[0])}, ` +
        `${lua(one.distinctPath.split('{n}')[1] ?? '')}, ${luaHeaders(one.headers)}, ${lua(one.body)}\n` +
        `counter = ${counterStart}\n` +
        'request = function()\n  counter = counter + 1\n  return wrk.format(method, pre .. counter .. post, headers, body)\nend\n'
      : `local list = {\n${requests.map((r) => `{${lua(r.method ?? 'GET')},${lua(r.path ?? '/')},${luaHeaders(r.headers)},${lua(r.body)}}`).join(',\n')}\n}\n` +
        'local reqs, i = {}, 0\n' +
        'init = function(args)\n  for k, r in ipairs(list) do reqs[k] = wrk.format(r[1], r[2], r[3], r[4]) end\nend\n' +
        `counter = ${counterStart}\n` +
        'request = function()\n  i = i % #reqs + 1\n  return reqs[i]\nend\n';
  return (
    build +
    'local threads = {}\nsetup = function(thread) table.insert(threads, thread) end\n' +
    'done = function(s, latency, _)\n' +
    '  local last = 0\n  for _, t in ipairs(threads) do last = math.max(last, t:get("counter")) end\n' +
    '  io.write(string.format(\'CAIRN_WRK {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' +
    '"timeout":%d,"p50_us":%d,"p99_us":%d,"counter":%d}\\n\', s.requests, s.duration, s.errors.connect, s.errors.read, ' +
    's.errors.write, s.errors.status, s.errors.timeout, latency:percentile(50), latency:percentile(99), last))\n' +
    'end\n'
  );
}

/**
 * Runs `wrk -t1 -c<connections> -d<seconds>s --timeout 10s` against `url` with `requests`
 * (which must pass {@link wrkCanRun}). Rejects when wrk fails or prints no totals.
 */
export async function runWrk(url: string, requests: readonly RequestTemplate[], o: { seconds: number; connections: number }): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-wrk-'));
  try {
    const file = join(dir, 'requests.lua');
    writeFileSync(file, script(requests, distinctCounter));
    const args = ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '10s', '-s', file, url];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile('wrk', args, { maxBuffer: 1 << 20 }, (err, out, errOut) =>
        err ? reject(new Error(`wrk ${args.join(' ')}: ${err.message}\n${errOut}`)) : resolve(out),
      );
    });
    const line = stdout.split('\n').find((l) => l.startsWith('CAIRN_WRK '));
    if (!line) throw new Error(`wrk printed no totals:\n${stdout}`);
    const t = JSON.parse(line.slice('CAIRN_WRK '.length)) as Record<string, number>;
    // Requests sent but not answered when the run stopped also used a key.
    if (requests[0].distinctPath !== undefined) distinctCounter = t.counter + 1;
    return {
      requests: t.requests,
      seconds: t.duration_us / 1e6,
      p50Ms: t.p50_us / 1000,
      p99Ms: t.p99_us / 1000,
      statusErrors: t.status,
      socketErrors: t.connect + t.read + t.write,
      timeouts: t.timeout,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Next value of the `distinctPath` counter for autocannon runs (shared with wrk runs, so keys never repeat). */
export function nextDistinct(): number {
  return ++distinctCounter;
}
