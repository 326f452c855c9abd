/**
 * The reference's port list text, as in the client's `reserved { reserved_ports = "22,80,8000-8100" }`
 * and a node's `ReservedResources.Networks.ReservedHostPorts` (reference/integration.md §1;
 * the reference's `structs.ParsePortRanges`): ports and inclusive ranges joined by commas,
 * spaces ignored. Read by the client's config (client/config.ts) and by the scheduler
 * (scheduler/ports.ts) from the node the client registered.
 *
 * @module
 */

/** Characters of a port list read: a longer one is not a port list (the text is bounded, as every parser of sent bytes). */
const MAX_SPEC_LENGTH = 4096;

/**
 * The ports `spec` lists. @throws {Error} `invalid port list "<spec>": <why>` for a list
 * longer than 4,096 characters, a part that is not a port or `low-high`, a port outside
 * 1–65535, a range whose low end is above its high end.
 */
export function parsePortSpec(spec: string): Set<number> {
  const out = new Set<number>();
  if (spec.length > MAX_SPEC_LENGTH) throw new Error(`invalid port list: longer than ${MAX_SPEC_LENGTH} characters`);
  const bad = (why: string) => new Error(`invalid port list ${JSON.stringify(spec)}: ${why}`);
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const m = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(part);
    if (!m) throw bad(`${JSON.stringify(part)} is not a port or a range "low-high"`);
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    if (low < 1 || high > 65535) throw bad(`${JSON.stringify(part)}: ports are between 1 and 65535`);
    if (low > high) throw bad(`${JSON.stringify(part)}: the range's low end is above its high end`);
    for (let p = low; p <= high; p++) out.add(p);
  }
  return out;
}
