/**
 * Table output of the `cairn acl` commands in the reference CLI's style: aligned
 * `Label:  value` blocks, sub-lists indented by three spaces (`Policies:` then
 * `   <id> - <name>`), list entries headed by their name or separated by a blank line.
 *
 * @module
 */
import type { MeshAuthMethod, MeshBindingRule, MeshLink, MeshPolicy, MeshReplicationStatus, MeshRole, MeshToken } from '../../sdk/index.js';
import { toJson } from '../format.js';

/** A block row: a scalar (`undefined` leaves the row out) or a sub-list (left out when empty). */
type Row = readonly [label: string, value: string | number | boolean | readonly string[] | undefined];

const SUB = '   ';

/** Renders `rows` as an aligned block, every line prefixed with `indent`; no final newline. */
function kvBlock(rows: readonly Row[], indent = ''): string {
  const scalars = rows.filter(([, v]) => v !== undefined && !Array.isArray(v));
  const width = Math.max(0, ...scalars.map(([l]) => l.length + 1)) + 2;
  const lines: string[] = [];
  for (const [label, value] of rows) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      lines.push(`${indent}${label}:`, ...value.map((v: string) => `${indent}${SUB}${v}`));
    } else {
      lines.push(`${indent}${`${label}:`.padEnd(width)}${String(value)}`.trimEnd());
    }
  }
  return lines.join('\n');
}

const links = (l: readonly MeshLink[] | undefined) => (l ?? []).map((x) => `${x.ID ?? ''} - ${x.Name ?? ''}`);

/** A token block (reference `acl token read`); `SecretID` shows whatever the value holds. */
export function tokenBlock(t: MeshToken, indent = ''): string {
  return kvBlock(
    [
      ['AccessorID', t.AccessorID],
      ['SecretID', t.SecretID],
      ['Description', t.Description],
      ['Local', t.Local],
      ['Auth Method', t.AuthMethod],
      ['Create Time', t.CreateTime],
      ['Expiration Time', t.ExpirationTime],
      ['Policies', links(t.Policies)],
      ['Roles', links(t.Roles)],
      [
        'Service Identities',
        (t.ServiceIdentities ?? []).map((s) => `${s.ServiceName} (Datacenters: ${s.Datacenters?.length ? s.Datacenters.join(', ') : 'all'})`),
      ],
      ['Node Identities', (t.NodeIdentities ?? []).map((n) => `${n.NodeName} (Datacenter: ${n.Datacenter})`)],
    ],
    indent,
  );
}

/** A policy block, rules last and unindented. */
export function policyBlock(p: MeshPolicy): string {
  const head = kvBlock([
    ['ID', p.ID],
    ['Name', p.Name],
    ['Description', p.Description],
    ['Datacenters', (p.Datacenters ?? []).join(', ')],
  ]);
  return `${head}\nRules:\n${p.Rules ?? ''}`.trimEnd();
}

/** Policy list entries: `name:` and an indented ID/Description/Datacenters block. */
export function policyList(items: readonly MeshPolicy[]): string {
  return items
    .map(
      (p) =>
        `${p.Name}:\n${kvBlock(
          [
            ['ID', p.ID],
            ['Description', p.Description],
            ['Datacenters', (p.Datacenters ?? []).join(', ')],
          ],
          SUB,
        )}`,
    )
    .join('\n');
}

function roleRows(r: MeshRole): Row[] {
  return [
    ['ID', r.ID],
    ['Name', r.Name],
    ['Description', r.Description],
    ['Policies', links(r.Policies)],
    [
      'Service Identities',
      (r.ServiceIdentities ?? []).map((s) => `${s.ServiceName} (Datacenters: ${s.Datacenters?.length ? s.Datacenters.join(', ') : 'all'})`),
    ],
    ['Node Identities', (r.NodeIdentities ?? []).map((n) => `${n.NodeName} (Datacenter: ${n.Datacenter})`)],
  ];
}

/** A role block. */
export function roleBlock(r: MeshRole): string {
  return kvBlock(roleRows(r));
}

/** Role list entries: `name:` and the role's block indented. */
export function roleList(items: readonly MeshRole[]): string {
  return items
    .map(
      (r) =>
        `${r.Name}:\n${kvBlock(
          roleRows(r).filter(([l]) => l !== 'Name'),
          SUB,
        )}`,
    )
    .join('\n');
}

/** An auth-method block; `Config` as indented JSON when present. */
export function authMethodBlock(m: MeshAuthMethod): string {
  const head = kvBlock([
    ['Name', m.Name],
    ['Type', m.Type],
    ['Display Name', m.DisplayName ?? ''],
    ['Description', m.Description ?? ''],
    ['Max Token TTL', m.MaxTokenTTL],
    ['Token Locality', m.TokenLocality],
  ]);
  return m.Config === undefined ? head : `${head}\nConfig:\n${toJson(m.Config)}`;
}

/** Auth-method list entries: `name:` and an indented Type/Display Name/Description block. */
export function authMethodList(items: readonly MeshAuthMethod[]): string {
  return items
    .map(
      (m) =>
        `${m.Name}:\n${kvBlock(
          [
            ['Type', m.Type],
            ['Display Name', m.DisplayName ?? ''],
            ['Description', m.Description ?? ''],
          ],
          SUB,
        )}`,
    )
    .join('\n');
}

/** A binding-rule block. */
export function bindingRuleBlock(r: MeshBindingRule): string {
  return kvBlock([
    ['ID', r.ID],
    ['AuthMethod', r.AuthMethod],
    ['Description', r.Description],
    ['BindType', r.BindType],
    ['BindName', r.BindName],
    ['Selector', r.Selector],
  ]);
}

/** The replication status block, the API's field names as labels. */
export function replicationBlock(s: MeshReplicationStatus): string {
  return kvBlock(Object.entries(s).map(([k, v]): Row => [k, v as string | number | boolean]));
}

/** Blocks separated by a blank line (token and binding-rule lists). */
export function blocks(items: readonly string[]): string {
  return items.join('\n\n');
}
