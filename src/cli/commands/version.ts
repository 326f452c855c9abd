/**
 * `cairn version` (also `cairn -version`, `--version`, `-v`, handled in main.ts before the
 * command tree): prints Cairn's version and build on one line, as the reference CLI's
 * `version` command (`Cairn v0.1.0 (<commit>), built <date>`; kernel/version).
 *
 * @module
 */
import type { Command } from 'commander';
import { versionText } from '../../kernel/version/index.js';
import type { App } from '../context.js';

/** The flags that print the version instead of running a command (the reference CLI's). */
export const VERSION_FLAGS: ReadonlySet<string> = new Set(['-version', '--version', '-v']);

/** Adds `version` to `program`. */
export function addVersionCommand(app: App, program: Command): void {
  program
    .command('version')
    .description('print the version and build of Cairn')
    .action(() => {
      app.io.stdout(`${versionText()}\n`);
    });
}
