#!/usr/bin/env node
// Makes a fresh clone runnable: installs npm packages when they are missing or older
// than package-lock.json, and rebuilds dist/ when any source file is newer than it.
// Used by `npm run dev`, `npm test` and `npm run bench` so one command works on a clone.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
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

/**
 * Runs `fn` holding a lock directory, so that two commands started at once (two `npm
 * test` in one checkout) do not run `npm ci` over each other: the second waits, then
 * finds the work done. A lock older than 10 minutes is taken as left by a killed run.
 */
function locked(fn) {
  const lock = '.cairn-setup.lock';
  const waitUntil = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - mtime(lock) > 10 * 60_000) rmdirSync(lock);
      else if (Date.now() > waitUntil) throw new Error(`${lock} is held by another run`);
      else execSync('sleep 1');
    }
  }
  try {
    fn();
  } finally {
    rmdirSync(lock);
  }
}

/**
 * Whether node_modules holds what package-lock.json asks for: judged by the lock file's
 * content (its hash, written beside the packages after each install), not its time, since
 * a checkout or a new git worktree gives every file a new time. An install from before the
 * hash was kept counts when it is newer than the lock file.
 */
function installedMatchesLock() {
  const want = createHash('sha256').update(readFileSync('package-lock.json')).digest('hex');
  if (!existsSync('node_modules/.package-lock.json')) return false;
  if (existsSync(INSTALLED_HASH)) return readFileSync(INSTALLED_HASH, 'utf8') === want;
  if (mtime('package-lock.json') > mtime('node_modules/.package-lock.json')) return false;
  writeFileSync(INSTALLED_HASH, want);
  return true;
}
const INSTALLED_HASH = 'node_modules/.cairn-lock-sha256';

locked(() => {
  if (!installedMatchesLock()) {
    console.error('cairn: installing npm packages (first run compiles better-sqlite3, about a minute)…');
    execSync('npm ci --no-audit --no-fund', { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(INSTALLED_HASH, createHash('sha256').update(readFileSync('package-lock.json')).digest('hex'));
  }
  const stamp = 'dist/.built';
  if (mtime(stamp) < Math.max(newest('src'), mtime('tsconfig.json'), mtime('package-lock.json'))) {
    console.error('cairn: building…');
    execSync('npx tsc -p tsconfig.json', { stdio: ['ignore', 'inherit', 'inherit'] });
    execSync('node scripts/build-info.mjs', { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(stamp, String(Date.now()));
  }
  // The web UI (ui/, built by Vite into dist/ui, served at /ui/): rebuilt when its sources change.
  const uiStamp = 'dist/ui/.built';
  if (mtime(uiStamp) < Math.max(newest('ui'), mtime('package-lock.json'))) {
    console.error('cairn: building the web UI…');
    execSync('npm run build:ui', { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(uiStamp, String(Date.now()));
  }
});
