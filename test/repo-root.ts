/**
 * The repository's root directory, for tests that run tools on it or write under it. `npm
 * test` runs the tests compiled, from the mirror .test-build/ (scripts/test-build.mjs), where
 * `..` from test/ is the mirror; the mirror's package.json is a symlink to the root's, whose
 * real path names the root in both layouts (`node --import tsx --test` runs them in place).
 */
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Absolute path of the repository's root. */
export const REPO_ROOT = dirname(realpathSync(join(import.meta.dirname, '..', 'package.json')));
