/**
 * Table output of the `cairn sched` commands in the reference CLI's style (Nomad's
 * `formatKV` and `formatList`): `Key = value` blocks aligned on ` = `, lists as columns
 * two spaces apart, sections headed by a bare title after a blank line.
 *
 * @module
 */
import type { SchedAclPolicy, SchedAclToken, SchedAuthMethod, SchedAuthMethodConfig, SchedAuthMethodStub, SchedNode, SchedNodeStub } from '../../sdk/index.js';

/** `[label, value]` rows as `label = value` lines, labels padded to one width; no final newline. */
export function kv(rows: readonly (readonly [string, string | number | boolean])[]): string {
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, v]) => `${l.padEnd(width)} = ${String(v)}`.trimEnd()).join('\n');
}

/** Columns two spaces apart, the first row the header; the last column is not padded. */
export function list(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 2)))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

/** Go's `%v` of a string slice: `[a b]`. */
const goList = (values: readonly string[] | null | undefined) => `[${(values ?? []).join(' ')}]`;
const orNone = (s: string | null | undefined) => (s ? s : '<none>');

/** A token (reference `acl token info` / `login`): its fields, then its roles when it has any. */
export function tokenBlock(t: SchedAclToken): string {
  const head = kv([
    ['Accessor ID', t.AccessorID],
    ['Secret ID', t.SecretID],
    ['Name', t.Name],
    ['Type', t.Type],
    ['Global', t.Global],
    ['Create Time', t.CreateTime],
    ['Expiry Time', orNone(t.ExpirationTime)],
    ['Create Index', t.CreateIndex],
    ['Modify Index', t.ModifyIndex],
    ['Policies', goList(t.Policies)],
  ]);
  const roles = t.Roles ?? [];
  if (roles.length === 0) return head;
  return `${head}\n\nRoles\n${list(
    ['ID', 'Name'],
    roles.map((r) => [r.ID ?? '', r.Name ?? '']),
  )}`;
}

/** Token list (reference `acl token list`). */
export function tokenList(tokens: readonly SchedAclToken[]): string {
  return list(
    ['Name', 'Type', 'Global', 'Accessor ID', 'Expired'],
    tokens.map((t) => [t.Name, t.Type, String(t.Global), t.AccessorID, String(!!t.ExpirationTime && Date.parse(t.ExpirationTime) <= Date.now())]),
  );
}

/** A policy (reference `acl policy info`): fields, then its rules. */
export function policyBlock(p: SchedAclPolicy): string {
  const head = kv([
    ['Name', p.Name],
    ['Description', p.Description],
    ['CreateIndex', p.CreateIndex],
    ['ModifyIndex', p.ModifyIndex],
  ]);
  return `${head}\n\nRules\n\n${p.Rules ?? ''}`.trimEnd();
}

/** Policy list (reference `acl policy list`). */
export function policyList(policies: readonly SchedAclPolicy[]): string {
  return policies.length === 0
    ? 'No policies found'
    : list(
        ['Name', 'Description'],
        policies.map((p) => [p.Name, p.Description]),
      );
}

/** Auth-method list (reference `acl auth-method list`). */
export function authMethodList(methods: readonly SchedAuthMethodStub[]): string {
  return methods.length === 0
    ? 'No ACL auth methods found'
    : list(
        ['Name', 'Type', 'Default'],
        methods.map((m) => [m.Name, m.Type, String(m.Default)]),
      );
}

const joined = (v: readonly string[] | null | undefined, sep = ',') => (v ?? []).join(sep);
const mapped = (m: Readonly<Record<string, string>> | null | undefined) =>
  Object.entries(m ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `{${k}: ${v}}`)
    .join('; ');

/** An auth method's config rows (reference `formatAuthMethodConfig`). */
function authMethodConfigBlock(c: SchedAuthMethodConfig): string {
  return kv([
    ['JWT Validation Public Keys', joined(c.JWTValidationPubKeys)],
    ['JWKS URL', c.JWKSURL ?? ''],
    ['OIDC Discovery URL', c.OIDCDiscoveryURL ?? ''],
    ['OIDC Client ID', c.OIDCClientID ?? ''],
    ['OIDC Client Secret', c.OIDCClientSecret ?? ''],
    ['OIDC Disable UserInfo', !!c.OIDCDisableUserInfo],
    ['OIDC Scopes', joined(c.OIDCScopes)],
    ['Bound audiences', joined(c.BoundAudiences)],
    ['Bound issuer', joined(c.BoundIssuer)],
    ['Allowed redirects URIs', joined(c.AllowedRedirectURIs)],
    ['Discovery CA pem', joined(c.DiscoveryCaPem)],
    ['JWKS CA cert', c.JWKSCACert ?? ''],
    ['Signing algorithms', joined(c.SigningAlgs)],
    ['Expiration Leeway', c.ExpirationLeeway || '0s'],
    ['NotBefore Leeway', c.NotBeforeLeeway || '0s'],
    ['ClockSkew Leeway', c.ClockSkewLeeway || '0s'],
    ['Claim mappings', mapped(c.ClaimMappings)],
    ['List claim mappings', mapped(c.ListClaimMappings)],
  ]);
}

/** An auth method (reference `acl auth-method info`): fields, then `Auth Method Config`. */
export function authMethodBlock(m: SchedAuthMethod): string {
  const head = kv([
    ['Name', m.Name],
    ['Type', m.Type],
    ['Locality', m.TokenLocality],
    ['Max Token TTL', m.MaxTokenTTL],
    ['Token Name Format', m.TokenNameFormat],
    ['Default', m.Default],
    ['Create Index', m.CreateIndex],
    ['Modify Index', m.ModifyIndex],
  ]);
  return m.Config ? `${head}\n\nAuth Method Config\n\n${authMethodConfigBlock(m.Config)}` : head;
}

/** The first 8 characters of an ID, as the reference shows IDs without `-verbose`. */
export const shortId = (id: string, verbose: boolean) => (verbose ? id : id.slice(0, 8));

/** Node list (reference `node status`). */
export function nodeList(nodes: readonly SchedNodeStub[], verbose: boolean): string {
  if (nodes.length === 0) return 'No nodes registered';
  return list(
    ['ID', 'Node Pool', 'DC', 'Name', 'Class', 'Drain', 'Eligibility', 'Status'],
    nodes.map((n) => [
      shortId(n.ID, verbose),
      n.NodePool || 'default',
      n.Datacenter,
      n.Name,
      orNone(n.NodeClass),
      String(!!n.Drain || !!(n as SchedNode).DrainStrategy),
      n.SchedulingEligibility,
      n.Status,
    ]),
  );
}

/** One node (reference `node status <id>`): fields, attributes, meta and recent events. */
export function nodeBlock(n: SchedNode, verbose: boolean): string {
  const parts = [
    kv([
      ['ID', n.ID],
      ['Name', n.Name],
      ['Node Pool', n.NodePool || 'default'],
      ['Class', orNone(n.NodeClass)],
      ['DC', n.Datacenter],
      ['Drain', !!n.Drain || !!n.DrainStrategy],
      ['Eligibility', n.SchedulingEligibility],
      ['Status', n.Status],
      ['HTTP Addr', orNone(n.HTTPAddr)],
      ['TLS Enabled', !!n.TLSEnabled],
      ['Status Updated', n.StatusUpdatedAt ? new Date(n.StatusUpdatedAt * 1000).toISOString() : '<none>'],
    ]),
  ];
  const section = (title: string, m: Readonly<Record<string, string>> | null | undefined) => {
    const rows = Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
    if (rows.length > 0) parts.push(`${title}\n${kv(rows)}`);
  };
  if (verbose) section('Attributes', n.Attributes);
  section('Meta', n.Meta);
  const events = n.Events ?? [];
  if (events.length > 0)
    parts.push(
      `Node Events\n${list(
        ['Time', 'Subsystem', 'Message'],
        [...events].reverse().map((e) => [e.Timestamp, e.Subsystem, e.Message]),
      )}`,
    );
  return parts.join('\n\n');
}
