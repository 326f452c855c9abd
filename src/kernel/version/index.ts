/**
 * Cairn's version and build, the same for every service and the CLI: `cairn version`,
 * the line every server logs when it starts, the secrets service's `sys/seal-status` and
 * `sys/health` `version` (reference/secrets.md §3.2, §3.4) and the OpenAPI documents'
 * `info.version`.
 *
 * The version is package.json's. The build (git commit and build time) is what
 * `scripts/build-info.mjs` wrote next to the compiled code when it was built
 * (`dist/build-info.json`); nothing shells out to git at run time, and a tree built
 * without that step (or run from source) reports the build as unknown.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Logger } from '../log/logger.js';

/** The build a binary came from; empty strings when not known. */
export interface BuildInfo {
  /** Full git commit hash, `''` when unknown. */
  readonly commit: string;
  /** Build time, RFC 3339 UTC (`2025-01-31T12:00:00Z`), `''` when unknown. */
  readonly date: string;
}

/** Parses a JSON file next to this module's tree, or undefined when it is missing or not JSON. */
function readJson(relative: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8'));
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

// This file is `src/kernel/version/index.ts` or `dist/kernel/version/index.js`: package.json
// is three levels up either way, the build file at the root of the compiled tree.
/** Cairn's version, e.g. `0.1.0` (package.json; no leading `v`, as the reference's `version` fields). */
export const VERSION: string = text(readJson('../../../package.json')?.version) || '0.0.0';

const build = readJson('../../build-info.json');
/** The build of this tree ({@link BuildInfo}). */
export const BUILD: BuildInfo = { commit: text(build?.commit), date: text(build?.date) };

/**
 * The one-line version text, after the reference CLI's `version` command:
 * `Cairn v0.1.0 (<commit>), built <date>`, or `Cairn v0.1.0 (unknown build)` when the
 * tree was built without its build file.
 */
export function versionText(v: string = VERSION, b: BuildInfo = BUILD): string {
  if (!b.commit) return `Cairn v${v} (unknown build)`;
  return `Cairn v${v} (${b.commit})${b.date ? `, built ${b.date}` : ''}`;
}

/** The fields a server logs at start: `{version, commit, build_date}` (`unknown` for a missing build part). */
function versionFields(): { version: string; commit: string; build_date: string } {
  return { version: VERSION, commit: BUILD.commit || 'unknown', build_date: BUILD.date || 'unknown' };
}

/** Logs the version and build once, as a server starts (`msg: "starting Cairn"`). */
export function logVersion(log: Pick<Logger, 'info'>): void {
  log.info(versionFields(), 'starting Cairn');
}
