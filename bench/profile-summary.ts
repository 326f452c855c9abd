/**
 * Summary of a V8 `.cpuprofile` (e.g. a bench server's, `BENCH_CHILD_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"`): busy share per second of the profile (to find the measured
 * round), then self time by function and by file and inclusive time by function within a
 * window, and optionally the callees of the functions matching a pattern. Shares are of
 * the window's sampled wall time, idle included. Not part of `npm run bench`.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--from S] [--to S] [--callees REGEX]
 *
 * `--from`/`--to`: seconds since the profile started (default: all of it).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  /** µs between samples. */
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, from: { type: 'string', default: '0' }, to: { type: 'string', default: '1e9' }, callees: { type: 'string' } },
});
if (positionals.length !== 1) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top N] [--from S] [--to S] [--callees REGEX]');
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const top = Number(values.top);
const fromUs = Number(values.from) * 1e6;
const toUs = Number(values.to) * 1e6;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const short = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'nm/').replace(`${process.cwd()}/`, '');
const keyOf = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${short(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;

// Self time per node within the window; busy/idle per second over the whole profile.
const idleId = profile.nodes.find((n) => n.callFrame.functionName === '(idle)')?.id;
const selfUs = new Map<number, number>();
const perSecond: { busy: number; idle: number }[] = [];
let at = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  const s = (perSecond[Math.floor(at / 1e6)] ??= { busy: 0, idle: 0 });
  if (id === idleId) s.idle += dt;
  else s.busy += dt;
  if (at >= fromUs && at <= toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
console.log(`busy share per second: ${perSecond.map((s, i) => `${i}:${Math.round((100 * (s?.busy ?? 0)) / 1e6)}%`).join(' ')}`);
console.log(`window ${(total / 1e6).toFixed(2)} s`);

const selfByFunction = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusive = new Map<string, number>();
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  add(selfByFunction, keyOf(f), us);
  add(selfByFile, short(f.url) || `(${f.functionName})`, us);
  // Each function once per stack, however often it recurses.
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const k = keyOf(byId.get(n)!.callFrame);
    if (!seen.has(k)) add(inclusive, k, us);
    seen.add(k);
  }
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n== ${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
};
print('self by function', selfByFunction);
print('self by file', selfByFile);
print('inclusive by function', inclusive);

if (values.callees) {
  const re = new RegExp(values.callees);
  const inclusiveOfNode = (n: ProfileNode): number => (selfUs.get(n.id) ?? 0) + (n.children ?? []).reduce((a, c) => a + inclusiveOfNode(byId.get(c)!), 0);
  const callees = new Map<string, number>();
  for (const n of profile.nodes) {
    if (!re.test(keyOf(n.callFrame))) continue;
    for (const c of n.children ?? []) {
      const child = byId.get(c)!;
      if (!re.test(keyOf(child.callFrame))) add(callees, keyOf(child.callFrame), inclusiveOfNode(child));
    }
  }
  print(`callees of /${values.callees}/ (inclusive)`, callees);
}
