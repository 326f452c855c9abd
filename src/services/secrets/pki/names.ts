/**
 * The reference's name rules of a PKI role (reference/secrets-engines.md §7 "Roles"; the
 * reference's `validateNames`): which common names and DNS / email subject alternative
 * names a role allows, and which IP and URI SANs. Pure functions; the errors are the
 * reference's texts.
 *
 * @module
 */
import { isIP } from 'node:net';
import { InputError } from '../../../kernel/util/duration.js';
import type { PkiRole } from './role.js';

/** Most subject alternative names one certificate may carry (an input bound; the reference has none). */
const MAX_SANS = 100;

const LABEL = /^([a-z0-9]|[a-z0-9][a-z0-9-]{0,61}[a-z0-9])$/i;

/** A DNS host name as the reference's `enforce_hostnames` accepts it: labels of letters, digits and inner hyphens. */
const isHostname = (name: string): boolean => name.length <= 253 && name.split('.').every((l) => LABEL.test(l));

/** `*` in `pattern` matches any run of characters, dots included (the reference's glob library). */
function globMatch(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  if (!name.startsWith(parts[0]) || !name.endsWith(parts[parts.length - 1])) return false;
  let at = parts[0].length;
  const end = name.length - parts[parts.length - 1].length;
  for (const p of parts.slice(1, -1)) {
    const i = name.indexOf(p, at);
    if (i < 0 || i + p.length > end) return false;
    at = i + p.length;
  }
  return at <= end;
}

/** Whether `role` allows the DNS name or email address `name` (CN or SAN). */
function nameAllowed(role: PkiRole, name: string): boolean {
  let host = name;
  const isEmail = name.includes('@');
  if (isEmail) {
    const at = name.lastIndexOf('@');
    if (at === 0 || at === name.length - 1) return false;
    host = name.slice(at + 1);
  }
  const isWildcard = !isEmail && host.startsWith('*');
  if (isWildcard && !role.allow_wildcard_certificates) return false;
  // A wildcard's host part is checked without its leftmost label ("*.example.com" → "example.com").
  const reduced = isWildcard ? host.slice(host.indexOf('.') + 1) : host;
  if (isWildcard && (!/^\*\./.test(host) || reduced === '')) return false;
  if (role.enforce_hostnames && !isHostname(reduced)) return false;
  if (role.allow_any_name) return true;
  if (role.allow_localhost && !isWildcard && (host === 'localhost' || host === 'localdomain')) return true;
  const lower = name.toLowerCase();
  const reducedLower = reduced.toLowerCase();
  for (const raw of role.allowed_domains) {
    const domain = raw.toLowerCase().replace(/^\*\./, '');
    if (!domain) continue;
    if (role.allow_bare_domains && !isWildcard && (lower === domain || (isEmail && host.toLowerCase() === domain))) return true;
    // Subdomains include wildcard subdomains: "*.example.com" is a subdomain name of example.com.
    if (role.allow_subdomains && (reducedLower.endsWith('.' + domain) || (isWildcard && reducedLower === domain))) return true;
    if (role.allow_glob_domains && raw.includes('*') && globMatch(raw.toLowerCase(), lower)) return true;
  }
  return false;
}

/**
 * Checks a request's names against `role`. `cn` is checked under the reference's text
 * `common name <cn> not allowed by this role`, each DNS/email SAN under `subject alternate
 * name <n> not allowed by this role`, IP SANs under `IP Subject Alternative Names are not
 * allowed in this role, but was provided <ip>`, URI SANs against `allowed_uri_sans` (globs).
 * Errors: {@link InputError} (400).
 */
export function checkNames(role: PkiRole, o: { cn: string; dns: readonly string[]; ips: readonly string[]; uris: readonly string[] }): void {
  if (o.cn && !nameAllowed(role, o.cn)) throw new InputError(`common name ${o.cn} not allowed by this role`);
  for (const n of o.dns) if (!nameAllowed(role, n)) throw new InputError(`subject alternate name ${n} not allowed by this role`);
  if (o.ips.length && !role.allow_ip_sans) throw new InputError(`IP Subject Alternative Names are not allowed in this role, but was provided ${o.ips[0]}`);
  for (const u of o.uris) {
    if (!role.allowed_uri_sans.length) throw new InputError('URI Subject Alternative Names are not allowed in this role, but were provided via the API');
    if (!role.allowed_uri_sans.some((p) => globMatch(p, u))) throw new InputError(`URI Subject Alternative Name ${u} not allowed by this role`);
  }
}

/**
 * Splits the requested SANs (`alt_names`: DNS names and emails; `ip_sans`; `uri_sans`),
 * adding the CN to the DNS or email SANs unless `excludeCn` (the reference's default
 * behaviour) and dropping duplicates. Errors (400 naming the field): an IP SAN that is not
 * an address, a URI that does not parse, more than {@link MAX_SANS} names in all.
 */
export function sansOf(o: { cn: string; altNames: string[]; ipSans: string[]; uriSans: string[]; excludeCn: boolean }): {
  dns: string[];
  emails: string[];
  ips: string[];
  uris: string[];
} {
  const names = [...(o.cn && !o.excludeCn && !/\s/.test(o.cn) ? [o.cn] : []), ...o.altNames];
  const dns = [...new Set(names.filter((n) => !n.includes('@')))];
  const emails = [...new Set(names.filter((n) => n.includes('@')))];
  for (const ip of o.ipSans) if (!isIP(ip)) throw new InputError(`ip_sans: the value ${JSON.stringify(ip)} is not a valid IP address`);
  for (const u of o.uriSans) if (!URL.canParse(u)) throw new InputError(`uri_sans: the value ${JSON.stringify(u)} is not a valid URI`);
  const ips = [...new Set(o.ipSans)];
  const uris = [...new Set(o.uriSans)];
  if (dns.length + emails.length + ips.length + uris.length > MAX_SANS)
    throw new InputError(`alt_names: at most ${MAX_SANS} subject alternative names per certificate`);
  return { dns, emails, ips, uris };
}
