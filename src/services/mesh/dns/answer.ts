/**
 * The records a DNS question under the agent's domain is answered with, from the catalog
 * and health state (issue 16 scope 7; reference/mesh-catalog.md "DNS"):
 *
 * - service lookups: the instances the DNS token may read (`service:read`, `node:read`),
 *   with the tag when one is asked, whose aggregate health is `passing` or `warning`
 *   (`passing` only with `dns_config.only_passing`; `critical` and maintenance never), in
 *   random order. A/AAAA give the service address, else the node's; SRV gives priority 1,
 *   the instance's `Weights` (`Passing` or `Warning`), its port and the target
 *   `<node>.node.<dc>.<domain>` (the node's address) or `<hex>.addr.<dc>.<domain>` (an
 *   address of its own), with the target's A/AAAA record in the additional section;
 * - node lookups: the node's address (`node:read`);
 * - no such name, no readable or healthy instance: NXDOMAIN; a name that exists without
 *   records of the asked type: NOERROR and no answer; both with the zone's SOA in the
 *   authority section. TTLs: `dns_config.service_ttl` / `node_ttl`, 0 by default.
 *
 * @module
 */
import { isIP } from 'node:net';
import type { Answer } from 'dns-packet';
import type { Indexed } from '../../../kernel/store/index.js';
import { identityOf } from '../access.js';
import { aggregateStatus, CT, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { AclView, tagsMatch } from '../catalog/query.js';
import type { MeshDnsConfig } from '../config.js';
import type { MeshDeps } from '../deps.js';
import { instanceChecks } from '../routes/health.js';
import { serviceInstances } from '../routes/catalog.js';
import { addrLabel, isDnsLabel, parseName, type Lookup } from './names.js';

/** Response codes the answers use (RFC 1035 §4.1.1). */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** The answer to one question: its response code and sections. */
export interface Reply {
  readonly rcode: number;
  readonly answers: Answer[];
  readonly authorities: Answer[];
  readonly additionals: Answer[];
}

/** What answering needs: the agent's deps (state, ACL resolver, config) and its DNS settings. */
export interface AnswerContext {
  readonly deps: MeshDeps;
  readonly dns: MeshDnsConfig;
  /** The secret DNS reads with (`acl.tokens.dns`, else `acl.tokens.default`); undefined: the anonymous token. */
  readonly token?: string;
  /** Clock in epoch ms (the SOA serial). */
  readonly now: () => number;
}

/** The SOA record of the zone (the reference's: `ns.` and `hostmaster.` names, serial = Unix time, refresh 3600, retry 600, expire 86400, minimum 0). */
function soaRecord(ctx: AnswerContext): Answer {
  const zone = ctx.dns.domain;
  return {
    name: zone,
    type: 'SOA',
    ttl: 0,
    data: {
      mname: `ns.${zone}`,
      rname: `hostmaster.${zone}`,
      serial: Math.floor(ctx.now() / 1000) >>> 0,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 0,
    },
  };
}

/**
 * Answers question `name` / `type` when the name is under the domain; undefined when it is
 * outside (the caller recurses or refuses).
 * @throws 403 `ACL not found` when the DNS token does not exist (the caller answers SERVFAIL).
 */
export function answerQuestion(ctx: AnswerContext, name: string, type: string): Reply | undefined {
  const lookup = parseName(name, ctx.dns.domain, ctx.deps.config.datacenter);
  if (lookup.kind === 'outside') return undefined;
  if (type === 'SOA' && lookup.kind === 'zone' && lookup.apex) return { rcode: RCODE.NOERROR, answers: [soaRecord(ctx)], authorities: [], additionals: [] };
  const found = records(ctx, lookup, name, type);
  if (found === 'nxdomain') return { rcode: RCODE.NXDOMAIN, answers: [], authorities: [soaRecord(ctx)], additionals: [] };
  const { answers, additionals } = found;
  return { rcode: RCODE.NOERROR, answers, authorities: answers.length === 0 ? [soaRecord(ctx)] : [], additionals };
}

/** The records of `lookup`, or `nxdomain` when the name does not exist for the DNS token. */
function records(ctx: AnswerContext, lookup: Lookup, name: string, type: string): { answers: Answer[]; additionals: Answer[] } | 'nxdomain' {
  const none = { answers: [], additionals: [] };
  switch (lookup.kind) {
    case 'zone':
      return lookup.apex ? none : 'nxdomain';
    case 'outside':
      return 'nxdomain';
    case 'addr':
      if (lookup.datacenter !== ownDatacenter(ctx)) return 'nxdomain';
      return { answers: addressRecords(name, lookup.address, type, ctx.dns.nodeTtl), additionals: [] };
    case 'node':
      return nodeRecords(ctx, lookup, name, type);
    case 'service':
      return serviceRecords(ctx, lookup, name, type);
  }
}

const ownDatacenter = (ctx: AnswerContext): string => ctx.deps.config.datacenter.toLowerCase();

/** A view reading as the DNS token. */
const viewOf = (ctx: AnswerContext): AclView => new AclView(identityOf(ctx.deps, ctx.token), ctx.token);

/** `<node>.node[.<dc>]`: the node's A or AAAA record. */
function nodeRecords(
  ctx: AnswerContext,
  lookup: Extract<Lookup, { kind: 'node' }>,
  name: string,
  type: string,
): { answers: Answer[]; additionals: Answer[] } | 'nxdomain' {
  if (lookup.datacenter !== ownDatacenter(ctx)) return 'nxdomain';
  const { state } = ctx.deps;
  const node = state.get<NodeDoc>(CT.nodes, lookup.node) ?? state.list<NodeDoc>(CT.nodes).find((n) => n.Node.toLowerCase() === lookup.node);
  if (!node || !viewOf(ctx).can('node', node.Node)) return 'nxdomain';
  return { answers: addressRecords(name, node.Address, type, ctx.dns.nodeTtl), additionals: [] };
}

/** An A (IPv4) or AAAA (IPv6) record of `address` named `name` when `type` asks for it; none for a host name. */
function addressRecords(name: string, address: string, type: string, ttl: number): Answer[] {
  const family = isIP(address);
  if (family === 4 && (type === 'A' || type === 'ANY')) return [{ name, type: 'A', ttl, data: address }];
  if (family === 6 && (type === 'AAAA' || type === 'ANY')) return [{ name, type: 'AAAA', ttl, data: address }];
  return [];
}

/** One instance that answers: its node, service and aggregate health. */
interface Healthy {
  readonly node: NodeDoc & Indexed;
  readonly service: ServiceDoc & Indexed;
  readonly status: 'passing' | 'warning';
}

/** The readable, healthy instances of `service` (name compared case-insensitively) carrying `tag`, shuffled. */
function healthyInstances(ctx: AnswerContext, service: string, tag: string | undefined): Healthy[] {
  const { state } = ctx.deps;
  const view = viewOf(ctx);
  const names = new Set(state.listBy<ServiceDoc>(CT.services, 'lowerName', service).map((s) => s.Service));
  const out: Healthy[] = [];
  for (const real of names) {
    for (const { node, service: s } of serviceInstances(state, view, real, { tags: [], meta: [] })) {
      if (tag !== undefined && !tagsMatch(s.Tags, [tag])) continue;
      const status = aggregateStatus(instanceChecks({ deps: ctx.deps }, node.Node, s.ID));
      if (status === 'passing' || (status === 'warning' && !ctx.dns.onlyPassing)) out.push({ node, service: s, status });
    }
  }
  // Fisher–Yates: the reference shuffles so clients spread over the instances.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** TTL of `service`'s records: its own `service_ttl` entry, else the longest `prefix*` entry, else 0. */
function serviceTtl(dns: MeshDnsConfig, service: string): number {
  const exact = dns.serviceTtl[service];
  if (exact !== undefined) return exact;
  let best: [number, number] | undefined;
  for (const [key, ttl] of Object.entries(dns.serviceTtl)) {
    if (!key.endsWith('*') || !service.startsWith(key.slice(0, -1))) continue;
    if (!best || key.length > best[0]) best = [key.length, ttl];
  }
  return best?.[1] ?? 0;
}

/** `[<tag>.]<service>.service[.<dc>]`: A/AAAA or SRV records of the healthy instances. */
function serviceRecords(
  ctx: AnswerContext,
  lookup: Extract<Lookup, { kind: 'service' }>,
  name: string,
  type: string,
): { answers: Answer[]; additionals: Answer[] } | 'nxdomain' {
  if (lookup.datacenter !== ownDatacenter(ctx)) return 'nxdomain';
  const instances = healthyInstances(ctx, lookup.service, lookup.tag);
  if (instances.length === 0) return 'nxdomain';
  const ttl = serviceTtl(ctx.dns, instances[0]!.service.Service);
  const answers: Answer[] = [];
  const additionals: Answer[] = [];
  const seen = new Set<string>();
  for (const { node, service, status } of instances) {
    const address = service.Address || node.Address;
    if (type === 'SRV') {
      const key = `${node.Node}|${address}|${service.Port}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const target = srvTarget(ctx, node, address);
      if (!target) continue;
      const weight = status === 'passing' ? service.Weights.Passing : service.Weights.Warning;
      answers.push({ name, type: 'SRV', ttl, data: { priority: 1, weight, port: service.Port, target } });
      additionals.push(...addressRecords(target, address, 'ANY', ttl));
    } else {
      if (seen.has(address)) continue;
      seen.add(address);
      answers.push(...addressRecords(name, address, type, ttl));
    }
  }
  return { answers, additionals };
}

/**
 * The SRV target of an instance at `address`: `<node>.node.<dc>.<domain>` when it is the
 * node's address, `<hex>.addr.<dc>.<domain>` when the instance has an IP of its own, the
 * host name itself otherwise; undefined when none can be a DNS name.
 */
function srvTarget(ctx: AnswerContext, node: NodeDoc, address: string): string | undefined {
  const suffix = `${ownDatacenter(ctx)}.${ctx.dns.domain}`;
  const family = isIP(address);
  if (address === node.Address && isDnsLabel(node.Node)) return `${node.Node}.node.${suffix}`;
  if (family === 4 || family === 6) return `${addrLabel(address, family)}.addr.${suffix}`;
  return address.split('.').every(isDnsLabel) ? address : undefined;
}
