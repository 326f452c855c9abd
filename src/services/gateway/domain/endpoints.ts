/**
 * A plugin host set's `preferred_endpoints` (reference: Boundary's plugin host sets,
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/host-sets): each entry
 * is `cidr:<address>/<bits>` (matches the host's IP addresses) or `dns:<glob>` (matches its
 * DNS names; `*` stands for any run of characters). At `:authorize-session` the first entry,
 * in order, that matches one of a host's addresses picks that address; a host none matches
 * is not offered. Without entries the host's own `attributes.address` is used.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';

/** Most entries a host set takes (a bound on the per-session work). */
export const MAX_PREFERRED_ENDPOINTS = 32;

/** Why `entry` is not a preferred endpoint; undefined when it is one. */
export function endpointProblem(entry: string): string | undefined {
  const colon = entry.indexOf(':');
  const kind = entry.slice(0, colon);
  const value = entry.slice(colon + 1);
  if (colon < 0 || (kind !== 'cidr' && kind !== 'dns')) return `"${entry}" must start with "cidr:" or "dns:".`;
  // At most 4 wildcards: the glob becomes a regular expression, whose backtracking grows with them.
  if (kind === 'dns')
    return value === '' || value.length > 255 || value.split('*').length > 5
      ? `"${entry}" needs a DNS name or glob of 1 to 255 characters with at most 4 "*".`
      : undefined;
  const [addr, bits, ...rest] = value.split('/');
  const family = isIP(addr ?? '');
  const max = family === 6 ? 128 : 32;
  if (rest.length > 0 || family === 0 || !/^\d{1,3}$/.test(bits ?? '') || Number(bits) > max) return `"${entry}" is not a CIDR block (address/bits).`;
  return undefined;
}

/** Whether `address` lies in the CIDR block `block` (`address/bits`, already checked). */
function inBlock(block: string, address: string): boolean {
  const [net, bits] = block.split('/');
  const family = isIP(address);
  if (family === 0 || family !== isIP(net)) return false;
  const list = new BlockList();
  const type = family === 6 ? 'ipv6' : 'ipv4';
  list.addSubnet(net, Number(bits), type);
  return list.check(address, type);
}

/** Whether `name` matches `glob` (`*`: any run of characters), case-insensitively as DNS names compare. */
function globMatches(glob: string, name: string): boolean {
  const re = new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
  return re.test(name);
}

/**
 * The address to connect to from a host's `ipAddresses` and `dnsNames` under `preferred`
 * (checked entries, in order); undefined when none matches.
 */
export function preferredAddress(preferred: readonly string[], ipAddresses: readonly string[], dnsNames: readonly string[]): string | undefined {
  for (const entry of preferred) {
    const value = entry.slice(entry.indexOf(':') + 1);
    const hit = entry.startsWith('cidr:') ? ipAddresses.find((a) => inBlock(value, a)) : dnsNames.find((n) => globMatches(value, n));
    if (hit !== undefined) return hit;
  }
  return undefined;
}
