/**
 * Glob names in scheduler policies (`namespace "prod-*"`, `host_volume "ssd-*"`, variable
 * paths): the reference matches them with `ryanuber/go-glob` and, when several match,
 * takes the closest one (`acl/acl.go` `findClosestMatchingGlob`).
 *
 * @module
 */

/**
 * `go-glob`'s `Glob`: `*` matches any run of characters (none included), anywhere and any
 * number of times; there is no other special character and no escaping. Each literal
 * part is found at its first occurrence after the previous one, as the reference does.
 */
export function globMatch(pattern: string, subject: string): boolean {
  if (pattern === '') return subject === '';
  if (pattern === '*') return true;
  const parts = pattern.split('*');
  if (parts.length === 1) return subject === pattern;
  const leading = pattern.startsWith('*');
  const trailing = pattern.endsWith('*');
  const end = parts.length - 1;
  let rest = subject;
  for (let i = 0; i < end; i++) {
    const at = rest.indexOf(parts[i]);
    if (i === 0 ? !leading && at !== 0 : at < 0) return false;
    rest = rest.slice(at + parts[i].length);
  }
  return trailing || rest.endsWith(parts[end]);
}

/**
 * The value of the glob closest to `name` among `globs` (keyed by pattern), or undefined
 * when none matches. Closeness is the reference's "difference": name length − pattern
 * length + number of `*` (UTF-8 bytes), smallest wins. On a tie the pattern that sorts
 * last by bytes wins: the reference walks its patterns in byte order and sorts them with
 * a stable sort whose comparison is `<=`, which moves a later equal one first.
 */
export function closestGlob<V>(globs: ReadonlyMap<string, V>, name: string): V | undefined {
  const nameLength = Buffer.byteLength(name);
  let best: { pattern: string; difference: number; value: V } | undefined;
  for (const [pattern, value] of globs) {
    if (!globMatch(pattern, name)) continue;
    const difference = nameLength - Buffer.byteLength(pattern) + (pattern.split('*').length - 1);
    const closer =
      best === undefined ||
      difference < best.difference ||
      (difference === best.difference && Buffer.compare(Buffer.from(pattern), Buffer.from(best.pattern)) > 0);
    if (closer) best = { pattern, difference, value };
  }
  return best?.value;
}
