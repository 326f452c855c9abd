#!/usr/bin/env node
// Runs the whole test suite with node's own runner (its summary is what CI reads).
// Node 20's `--test` takes no globs, so the files are listed here (ecosystem.md §10).
// Extra arguments narrow the run to files whose path contains any of them.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) find(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = [...find('src', []), ...find('test', [])].filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/failed-summary.mjs',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
