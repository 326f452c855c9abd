#!/usr/bin/env node
// Runs the whole test suite with node's own runner (its summary is what CI reads), from
// compiled JavaScript: scripts/test-build.mjs first brings .test-build/ (src/, test/ and bench/
// compiled by swc, with source maps) up to date, and the files run from there; the stacks the
// run reports are mapped back to the .ts lines (scripts/source-stacks.mjs). Loading tsx's loader into every
// test file's process cost about 1 s of CPU per file (BENCHMARKS.md, "Test suite"). One file by
// hand still runs from source: `node --import tsx --test test/x.test.ts`.
// Node 20's `--test` takes no globs, so the files are listed here (ecosystem.md §10).
// Extra arguments narrow the run to files whose path contains any of them.
// `--record-durations` also writes each file's duration into scripts/test-durations.json
// (`npm run test:durations`). CAIRN_TEST_CONCURRENCY sets how many files run at once (3: most
// test time is waiting on processes, timers and the network, so a third file overlaps that
// wait on the two cores; each file's start is the CPU-bound part). Four at a time kept the
// cores busier but the suite no faster: 642 and 722 s against 680 and 713 s at three
// (BENCHMARKS.md, "Issue 30, continued"), with more of its timed tests squeezed.
//
// The runner starts the files in the order given, three at a time, so the longest files go
// first (by scripts/test-durations.json, a file not in it counting as longest): sorted by
// name, the end-to-end suites under test/ came last and the run ended on one of them alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, compiledPath } from './test-build.mjs';

const DURATIONS = 'scripts/test-durations.json';

function find(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) find(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** @returns {Record<string, number>} the recorded duration (ms) of each test file */
function recorded(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

/** @returns {Record<string, number>} what the durations reporter wrote (nothing when the run was cut short) */
function recordedRun(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

const record = process.argv.includes('--record-durations');
const filters = process.argv.slice(2).filter((a) => a !== '--record-durations');
const durations = recorded(DURATIONS);
// A new file (not recorded yet) may be a long one: it starts first rather than last.
const expected = (f) => durations[f] ?? Number.MAX_SAFE_INTEGER;
const files = [...find('src', []), ...find('test', [])]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
  .sort((a, b) => expected(b) - expected(a));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const tmp = record ? mkdtempSync(join(tmpdir(), 'cairn-test-durations-')) : undefined;
const concurrency = process.env.CAIRN_TEST_CONCURRENCY ?? '3';
await build();
const r = spawnSync(process.execPath, ['scripts/test-run.mjs', concurrency, tmp ? join(tmp, 'durations.json') : '-', ...files.map(compiledPath)], {
  stdio: 'inherit',
});
if (tmp) {
  // This run's files replace their entries; files that no longer exist leave the list.
  const all = new Set([...find('src', []), ...find('test', [])]);
  const merged = { ...durations, ...recordedRun(join(tmp, 'durations.json')) };
  const kept = Object.entries(merged)
    .filter(([f]) => all.has(f))
    .sort(([a], [b]) => a.localeCompare(b));
  writeFileSync(DURATIONS, JSON.stringify(Object.fromEntries(kept), null, 2) + '\n');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(r.status ?? 1);
