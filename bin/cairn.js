#!/usr/bin/env node
// The `cairn` command: runs the compiled CLI (dist/, built by `npm run build` or by the
// README's first command).
import '../dist/cli/run.js';
