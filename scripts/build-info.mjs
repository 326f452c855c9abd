#!/usr/bin/env node
// Writes dist/build-info.json ({commit, date}) after a build, so the compiled code reports
// the commit it was built from (src/kernel/version) without running git itself. Outside a
// git checkout (or without git) the commit is left empty: the build then reads as unknown.
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

let commit = '';
try {
  commit = execSync('git rev-parse HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {
  // not a git checkout: unknown build
}
const date = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', `${JSON.stringify({ commit, date })}\n`);
