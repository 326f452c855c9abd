/**
 * The `Hash` of tokens, policies and roles (reference/mesh.md §6.2; the reference's
 * `SetHash` methods in `agent/structs/acl.go`): BLAKE2b-256 over the content fields,
 * written one after another as raw UTF-8 bytes with no separators or lengths (Go's
 * `hash.Write`), shown as standard base64 (Go's JSON encoding of `[]byte`). IDs, create
 * times and raft indexes are left out; the CE build writes no Enterprise metadata.
 *
 * Node's crypto offers `blake2b512` only, whose `outputLength` cannot shorten it, and a
 * truncated BLAKE2b-512 differs from BLAKE2b-256 anyway (the digest length is in the
 * parameter block), so `@noble/hashes` computes it.
 *
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';

/** A service identity: `ServiceName`, then each of `Datacenters`. */
interface ServiceIdentity {
  readonly serviceName: string;
  readonly datacenters?: readonly string[];
}

/** A node identity: `NodeName`, then `Datacenter`. */
interface NodeIdentity {
  readonly nodeName: string;
  readonly datacenter: string;
}

/** A templated policy: `TemplateID`, `TemplateName`, the `Name` variable when set, then each datacenter. */
interface TemplatedPolicy {
  readonly templateId: string;
  readonly templateName: string;
  /** `TemplateVariables.Name`; absent when the template takes no variables. */
  readonly name?: string;
  readonly datacenters?: readonly string[];
}

/** The hashed fields of a token. Link lists hold IDs (names are resolved at read time and not hashed). */
export interface TokenHashInput {
  readonly description: string;
  readonly local: boolean;
  readonly policyIds: readonly string[];
  readonly roleIds: readonly string[];
  readonly serviceIdentities: readonly ServiceIdentity[];
  readonly nodeIdentities: readonly NodeIdentity[];
  readonly templatedPolicies?: readonly TemplatedPolicy[];
}

/** The hashed fields of a policy. */
export interface PolicyHashInput {
  readonly name: string;
  readonly description: string;
  readonly rules: string;
  readonly datacenters: readonly string[];
}

/** The hashed fields of a role. */
export interface RoleHashInput {
  readonly name: string;
  readonly description: string;
  readonly policyIds: readonly string[];
  readonly serviceIdentities: readonly ServiceIdentity[];
  readonly nodeIdentities: readonly NodeIdentity[];
  readonly templatedPolicies?: readonly TemplatedPolicy[];
}

/** Token hash: Description, `local`/`global`, policy IDs, role IDs, service identities, node identities, templated policies. */
export function tokenHash(t: TokenHashInput): string {
  return digest([
    t.description,
    t.local ? 'local' : 'global',
    ...t.policyIds,
    ...t.roleIds,
    ...identityFields(t.serviceIdentities, t.nodeIdentities, t.templatedPolicies),
  ]);
}

/** Policy hash: Name, Description, Rules, each datacenter. */
export function policyHash(p: PolicyHashInput): string {
  return digest([p.name, p.description, p.rules, ...p.datacenters]);
}

/**
 * Role hash: Name, Description, policy IDs, service identities, node identities,
 * templated policies (the last by analogy with tokens: not confirmed in the reference).
 */
export function roleHash(r: RoleHashInput): string {
  return digest([r.name, r.description, ...r.policyIds, ...identityFields(r.serviceIdentities, r.nodeIdentities, r.templatedPolicies)]);
}

function identityFields(services: readonly ServiceIdentity[], nodes: readonly NodeIdentity[], templated: readonly TemplatedPolicy[] = []): string[] {
  return [
    ...services.flatMap((s) => [s.serviceName, ...(s.datacenters ?? [])]),
    ...nodes.flatMap((n) => [n.nodeName, n.datacenter]),
    ...templated.flatMap((tp) => [tp.templateId, tp.templateName, ...(tp.name === undefined ? [] : [tp.name]), ...(tp.datacenters ?? [])]),
  ];
}

/** BLAKE2b-256 of the fields' UTF-8 bytes back to back, as base64. */
function digest(fields: readonly string[]): string {
  return Buffer.from(blake2b(Buffer.from(fields.join(''), 'utf8'), { dkLen: 32 })).toString('base64');
}
