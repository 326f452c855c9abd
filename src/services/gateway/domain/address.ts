/**
 * Network addresses of static hosts and of targets (`address`): an IP address or a DNS
 * name, without a port, 3 to 255 characters after trimming. Mirrors the reference's
 * `util.ParseAddress` (Boundary `internal/util/net.go`): an IPv6 address may be written
 * bare or in brackets; `host:port`, `[v6]:port` count as carrying a port; any other
 * input that is neither an IP address nor a DNS name is refused.
 *
 * @module
 */
import { isIP } from 'node:net';

/** The reference's `static.MinHostAddressLength` / `MaxHostAddressLength`. */
const MIN_ADDRESS_LENGTH = 3;
const MAX_ADDRESS_LENGTH = 255;

/** Why an address is refused: its length, a port, or another reason (the text after "Error parsing address: "). */
export type AddressProblem = { readonly kind: 'length' } | { readonly kind: 'port' } | { readonly kind: 'invalid'; readonly reason: string };

/** A DNS name: dot-separated labels of letters, digits, `-` and `_`, no label starting or ending with `-`, a trailing dot allowed. */
const DNS_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/**
 * The address `raw` as stored (trimmed), or the problem with it.
 * @returns `{ address }` when it is an IP address or a DNS name without a port, else `{ problem }`.
 */
export function parseAddress(raw: string): { address: string; problem?: undefined } | { address?: undefined; problem: AddressProblem } {
  const a = raw.trim();
  if (a.length < MIN_ADDRESS_LENGTH || a.length > MAX_ADDRESS_LENGTH) return { problem: { kind: 'length' } };
  if (isIP(a)) return { address: a };
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(a);
  if (bracketed) {
    if (bracketed[2] !== undefined && bracketed[2] !== '') return { problem: { kind: 'port' } };
    if (isIP(bracketed[1]) === 6 && bracketed[2] === undefined) return { address: a };
    return { problem: { kind: 'invalid', reason: `address ${JSON.stringify(a)} is not a bracketed IPv6 address` } };
  }
  const colons = a.split(':').length - 1;
  if (colons === 1) return a.endsWith(':') ? { problem: { kind: 'invalid', reason: 'missing port after ":"' } } : { problem: { kind: 'port' } };
  if (colons > 1) return { problem: { kind: 'invalid', reason: 'too many colons in address' } };
  if (!DNS_NAME.test(a)) return { problem: { kind: 'invalid', reason: `${JSON.stringify(a)} is neither an IP address nor a DNS name` } };
  return { address: a };
}

/**
 * The reference's text for `problem` on a field; `portText` is what a port gets
 * ("Address for static hosts does not support a port." for hosts, "Address does not
 * support a port." for targets).
 */
export function addressProblemText(problem: AddressProblem, portText: string): string {
  if (problem.kind === 'length') return `Address length must be between ${MIN_ADDRESS_LENGTH} and ${MAX_ADDRESS_LENGTH} characters.`;
  if (problem.kind === 'port') return portText;
  return `Error parsing address: ${problem.reason}.`;
}
