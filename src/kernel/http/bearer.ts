/**
 * `Authorization: Bearer <token>` parsing. Each reference product reads the header its own
 * way, and clients see the difference (which spellings authenticate and which fall back to
 * the anonymous token), so the rule is named by the caller rather than unified.
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';

/**
 * How a service reads the header:
 * - `exact-first-word`: scheme exactly `Bearer`, one space, then the first run of
 *   non-white-space (discovery, reference/mesh.md §0.2);
 * - `any-case-first-word`: scheme `bearer` in any case up to the first space, the rest
 *   trimmed and its first space-separated word (scheduler, reference/sched.md §1.3);
 * - `exact-rest`: the value starts with `Bearer `, the rest trimmed (secrets,
 *   reference/secrets.md §1);
 * - `any-case-one-word`: scheme `bearer` in any case, white space, then exactly one word
 *   and nothing after it but white space (gateway).
 */
export type BearerRule = 'exact-first-word' | 'any-case-first-word' | 'exact-rest' | 'any-case-one-word';

const PATTERN: Readonly<Record<BearerRule, RegExp>> = {
  'exact-first-word': /^Bearer (\S+)/,
  'any-case-first-word': /^bearer (.*)$/is,
  'exact-rest': /^Bearer (.*)$/s,
  'any-case-one-word': /^Bearer\s+(\S+)\s*$/i,
};

/**
 * The bearer token of `headers.authorization` read by `rule`; undefined when the header is
 * absent, has another scheme, or carries an empty token.
 */
export function bearerToken(headers: IncomingHttpHeaders, rule: BearerRule): string | undefined {
  const m = PATTERN[rule].exec(headers.authorization ?? '');
  if (!m) return undefined;
  switch (rule) {
    case 'any-case-first-word':
      return m[1].trim().split(' ')[0] || undefined;
    case 'exact-rest':
      return m[1].trim() || undefined;
    case 'exact-first-word':
    case 'any-case-one-word':
      return m[1];
    default: {
      const never: never = rule;
      return never;
    }
  }
}
