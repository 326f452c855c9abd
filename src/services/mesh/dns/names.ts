/**
 * What a DNS question name asks for (issue 16 scope 7; reference/mesh-catalog.md "DNS"),
 * in the reference's forms, compared case-insensitively:
 *
 * - `[<tag>.]<service>.service[.<dc>].<domain>` and the RFC 2782 form
 *   `_<service>._<tag>.service[.<dc>].<domain>` (`_tcp` / `_udp` as the tag mean no tag);
 * - `<node>.node[.<dc>].<domain>`;
 * - `<hex IP>.addr[.<dc>].<domain>` (the SRV targets of instances with their own address);
 * - any other name under the domain is not there (NXDOMAIN); names outside it go to the
 *   recursors.
 *
 * @module
 */

/** One parsed question name. */
export type Lookup =
  | { readonly kind: 'service'; readonly service: string; readonly tag?: string; readonly datacenter: string }
  | { readonly kind: 'node'; readonly node: string; readonly datacenter: string }
  | { readonly kind: 'addr'; readonly address: string; readonly datacenter: string }
  /** The domain itself, or a name under it of no known form. */
  | { readonly kind: 'zone'; readonly apex: boolean }
  /** A name outside the domain. */
  | { readonly kind: 'outside' };

/** The lookup kinds a label names, as they appear in a name. */
const KINDS = new Set(['service', 'node', 'addr']);

/**
 * Parses question `name` (with or without the final dot, any case) against `domain`
 * (lower case, no dots at the ends); `datacenter` is the one a name without one means.
 */
export function parseName(name: string, domain: string, datacenter: string): Lookup {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower === domain) return { kind: 'zone', apex: true };
  if (!lower.endsWith(`.${domain}`)) return { kind: 'outside' };
  const labels = lower.slice(0, -(domain.length + 1)).split('.');
  // `<...>.<kind>` or `<...>.<kind>.<dc>`: the kind is the last label or the one before it.
  let at = labels.length - 1;
  let dc = datacenter.toLowerCase();
  if (!KINDS.has(labels[at]!) && at > 0 && KINDS.has(labels[at - 1]!)) {
    dc = labels[at]!;
    at -= 1;
  }
  const kind = labels[at]!;
  const rest = labels.slice(0, at);
  if (!KINDS.has(kind) || rest.length === 0 || rest.some((l) => l === '')) return { kind: 'zone', apex: false };
  if (kind === 'node') return { kind, node: rest.join('.'), datacenter: dc };
  if (kind === 'addr') {
    const address = rest.length === 1 ? hexAddress(rest[0]!) : undefined;
    return address ? { kind, address, datacenter: dc } : { kind: 'zone', apex: false };
  }
  if (rest.length === 2 && rest[0]!.startsWith('_') && rest[1]!.startsWith('_')) {
    const tag = rest[1]!.slice(1);
    return { kind: 'service', service: rest[0]!.slice(1), tag: tag === 'tcp' || tag === 'udp' ? undefined : tag, datacenter: dc };
  }
  const service = rest[rest.length - 1]!;
  const tag = rest.length > 1 ? rest.slice(0, -1).join('.') : undefined;
  return { kind: 'service', service, tag, datacenter: dc };
}

/** The IP address of an `addr` label: 8 hex digits (IPv4) or 32 (IPv6); undefined otherwise. */
function hexAddress(label: string): string | undefined {
  if (!/^[0-9a-f]+$/.test(label)) return undefined;
  if (label.length === 8) return [0, 2, 4, 6].map((i) => parseInt(label.slice(i, i + 2), 16)).join('.');
  if (label.length === 32) return Array.from({ length: 8 }, (_, i) => label.slice(i * 4, i * 4 + 4)).join(':');
  return undefined;
}

/** The `addr` label of an IP address (the inverse of {@link hexAddress}). */
export function addrLabel(ip: string, family: 4 | 6): string {
  if (family === 4)
    return ip
      .split('.')
      .map((o) => Number(o).toString(16).padStart(2, '0'))
      .join('');
  return expandIPv6(ip)
    .map((g) => g.padStart(4, '0'))
    .join('');
}

/** The eight groups of an IPv6 address (`::` expanded; an embedded IPv4 tail converted). */
function expandIPv6(ip: string): string[] {
  let text = ip;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  return tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
}

/** Whether `name` can be one DNS label in an answer (the reference skips other names). */
export function isDnsLabel(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,63}$/.test(name);
}
