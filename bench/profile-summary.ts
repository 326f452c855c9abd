/**
 * Summarises V8 `.cpuprofile` files (from `BENCH_CHILD_ARGS="--cpu-prof --cpu-prof-dir=DIR"`): the top functions
 * by self time and by inclusive time, and self time per source file, each as a share of all samples in the
 * profile (idle and GC included, so shares of different runs compare only when the load was alike).
 *
 * Usage: `node --import tsx bench/profile-summary.ts FILE.cpuprofile [TOP] [LAST_S]` (TOP rows per table, default
 * 30; LAST_S: only the samples of the profile's last LAST_S seconds, e.g. the measured round of a one-round bench
 * run, leaving out start-up and setup). Prints Markdown tables to stdout. Used for issue 15's "where the time goes" (BENCHMARKS.md).
 */
import { readFileSync } from 'node:fs';

/** One node of V8's call tree, as `--cpu-prof` writes it. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The `.cpuprofile` JSON: call tree, sampled node ids and the µs between samples. */
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [TOP] [LAST_S]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

/** A short label for a frame: function, file (path below the repo or node_modules) and line. */
function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
}

/** The file part of a frame's URL, shortened to what identifies it. */
function shortUrl(url: string): string {
  if (!url) return '(native)';
  const cut = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'npm:')
    .replace(/^.*?\/(src|bench|dist)\//, '$1/');
  return cut.replace(/^node:/, 'node:');
}

const byId = new Map<number, ProfileNode>();
const parent = new Map<number, number>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}

// Sample weights: each sample counts the time delta that follows it (V8's own convention).
const at: number[] = [];
profile.timeDeltas.reduce((t, dt, i) => (at[i] = t + dt), 0);
const from = lastArg ? at[at.length - 1] - Number(lastArg) * 1e6 : -Infinity;
const selfTime = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  if (at[i] < from) return;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfTime.set(id, (selfTime.get(id) ?? 0) + dt);
  total += dt;
});

const selfByLabel = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusiveByLabel = new Map<string, number>();
for (const [id, t] of selfTime) {
  const node = byId.get(id)!;
  const name = label(node);
  selfByLabel.set(name, (selfByLabel.get(name) ?? 0) + t);
  const f = shortUrl(node.callFrame.url);
  selfByFile.set(f, (selfByFile.get(f) ?? 0) + t);
  // Inclusive: every distinct label on the path to the root gets the sample once (recursion counted once).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusiveByLabel.set(l, (inclusiveByLabel.get(l) ?? 0) + t);
  }
}

/** Prints one table of the largest entries of a map, as % of all sampled time. */
function table(title: string, m: Map<string, number>): void {
  console.log(`\n### ${title}\n\n| % | ms | frame |\n|---:|---:|---|`);
  const rows = [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, t] of rows) console.log(`| ${((100 * t) / total).toFixed(1)} | ${(t / 1000).toFixed(0)} | ${name.replace(/\|/g, '\\|')} |`);
}

console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${profile.samples.length} samples`);
table('Self time by function', selfByLabel);
table('Self time by file', selfByFile);
table('Inclusive time by function', inclusiveByLabel);
table("Inclusive time by function, Cairn's own code (src/)", new Map([...inclusiveByLabel].filter(([l]) => l.includes(' src/'))));
