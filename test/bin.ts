/**
 * The command tests start as a process: the built `bin/cairn.js` (`npm test` builds `dist/`
 * first, scripts/ensure-built.mjs). Starting the compiled code instead of `src/cli/run.ts`
 * through tsx saves about a third of each start's CPU, which on a 2-core CI machine running
 * two test files at once is most of what process-starting tests wait for. After editing
 * `src/`, run `npx tsc -p tsconfig.json` before `node scripts/test.mjs …`.
 */
import { join } from 'node:path';

/** Path of the built command-line entry point. */
export const CAIRN_BIN = join(import.meta.dirname, '..', 'bin', 'cairn.js');
