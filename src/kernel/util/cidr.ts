/**
 * CIDR blocks as the reference products take them (`secret_id_bound_cidrs`,
 * `token_bound_cidrs`, `cidr_list`; reference/secrets.md §4.2): parsing a comma list or
 * array of blocks, whether a client address lies in one of them, and whether one set of
 * blocks lies inside another. Membership uses `node:net`'s `BlockList`, which also
 * matches an IPv4-mapped IPv6 client address (`::ffff:10.0.0.1`) against IPv4 blocks.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';
import { commaList } from '../http/fields.js';
import { InputError } from './duration.js';

/** One parsed block: its network address (as given), family and prefix length. */
interface Block {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number;
}

function parseBlock(s: string): Block | undefined {
  const slash = s.indexOf('/');
  const address = slash < 0 ? s : s.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix: Number(prefixText) };
}

/**
 * `"10.0.0.0/8, 127.0.0.1"` or `["10.0.0.0/8"]` → `["10.0.0.0/8", "127.0.0.1/32"]`:
 * trimmed, empty items dropped, a bare address given its full-length prefix.
 * @throws {InputError} 400 `<field>: invalid CIDR block "<item>"` for an item that is not
 *   an IPv4/IPv6 address with an optional prefix length.
 */
export function parseCidrList(v: unknown, field: string): string[] {
  return commaList(v).map((item) => {
    const b = parseBlock(item);
    if (!b) throw new InputError(`${field}: invalid CIDR block "${item}"`);
    return `${b.address}/${b.prefix}`;
  });
}

function blockList(blocks: readonly Block[]): BlockList {
  const list = new BlockList();
  for (const b of blocks) list.addSubnet(b.address, b.prefix, b.family);
  return list;
}

const parsed = (cidrs: readonly string[]): Block[] => cidrs.map((c) => parseBlock(c)).filter((b): b is Block => b !== undefined);

/**
 * Whether client address `address` (as the socket reports it; IPv4-mapped IPv6 allowed)
 * lies in one of `cidrs` (blocks from {@link parseCidrList}). False for an empty or
 * unparsable address.
 */
export function addressInCidrs(address: string, cidrs: readonly string[]): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  return blockList(parsed(cidrs)).check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether every block of `inner` lies inside some block of `outer` (same family, a
 * prefix at least as long, its network address inside). An empty `outer` bounds
 * nothing, so everything is inside it (the reference's subset rule for secret ID CIDRs).
 */
export function cidrsWithin(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  const outs = parsed(outer);
  return parsed(inner).every((i) => outs.some((o) => o.family === i.family && o.prefix <= i.prefix && blockList([o]).check(i.address, i.family)));
}
