#!/usr/bin/env node
// The `cairn` command: runs the compiled CLI (dist/cli/main.js, built by `npm run build`).
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2), process.env, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stdout.isTTY === true,
});
process.exitCode = code;
