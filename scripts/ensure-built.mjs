#!/usr/bin/env node
// Makes a fresh clone runnable: installs npm packages when they are missing or older
// than package-lock.json, and rebuilds dist/ when any source file is newer than it.
// Used by `npm run dev`, `npm test` and `npm run bench` so one command works on a clone.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    t = Math.max(t, statSync(p).isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || mtime('package-lock.json') > mtime(installed)) {
  console.error('cairn: installing npm packages (first run compiles better-sqlite3, about a minute)…');
  execSync('npm ci --no-audit --no-fund', { stdio: ['ignore', 'inherit', 'inherit'] });
}
const stamp = 'dist/.built';
if (mtime(stamp) < Math.max(newest('src'), mtime('tsconfig.json'), mtime('package-lock.json'))) {
  console.error('cairn: building…');
  execSync('npx tsc -p tsconfig.json', { stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(stamp, String(Date.now()));
}
