/**
 * The value readers a job file's blocks share (hcl.ts, services-hcl.ts, network.ts): a
 * decoded HCL block with its position, an error at a key's line, Go durations.
 *
 * @module
 */
import { ConfigError, type BlockAt } from '../../../kernel/config/index.js';
import { parseGoDuration } from '../../../kernel/util/go-duration.js';

/** A decoded HCL block: its keys, and where it and each key stand in the file. */
export type Body = Record<string, unknown> & { readonly $at: BlockAt };

/** A ConfigError naming `key` at its line in the file (the block's line when unknown). */
export function issue(at: BlockAt, key: string, message: string): ConfigError {
  return new ConfigError([{ file: at.file, line: at.keyLines[key] ?? at.line, key, message }]);
}

/** Drops the keys whose value is undefined (the output holds only what the file sets). */
export function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** The Go duration string of key `key` in ns, undefined when absent. @throws ConfigError at its line. */
export function duration(b: Body, key: string): number | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  const ns = typeof v === 'string' ? parseGoDuration(v) : `got ${JSON.stringify(v)}`;
  if (typeof ns === 'string') throw issue(b.$at, key, `"${key}" must be a duration such as "30s" or "1h30m" (${ns})`);
  return ns;
}
