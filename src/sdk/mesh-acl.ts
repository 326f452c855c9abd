/**
 * The ACL object families of the discovery service's API (reference/mesh.md §4, §6):
 * tokens, policies, roles, auth methods and binding rules, each a small class over the
 * client's call function. Reached as `MeshClient.tokens`, `.policies`, … (see mesh.ts).
 *
 * @module
 */
import type { MeshCall } from './mesh-call.js';
import type {
  MeshAuthMethod,
  MeshAuthMethodInput,
  MeshBindingRule,
  MeshBindingRuleInput,
  MeshList,
  MeshPolicy,
  MeshPolicyInput,
  MeshQueryOptions,
  MeshRole,
  MeshRoleInput,
  MeshToken,
  MeshTokenInput,
} from './mesh-types.js';

const seg = encodeURIComponent;

/** A blocking list read: `wait` (default 5 min) is added to the call's time limit. */
async function list<T>(call: MeshCall, path: string, query: Record<string, string | undefined>, o: MeshQueryOptions): Promise<MeshList<T>> {
  const blocking = o.index !== undefined;
  const r = await call<T[] | null>('GET', path, {
    query: { ...query, index: o.index, wait: o.wait },
    extraTimeoutMs: blocking ? 660_000 : 0,
  });
  return { items: r.body ?? [], index: r.index };
}

/** Token list filters (`GET /v1/acl/tokens?policy=&role=&authmethod=&servicename=`). */
export interface MeshTokenFilter extends MeshQueryOptions {
  /** A policy ID. */
  readonly policy?: string;
  /** A role ID. */
  readonly role?: string;
  readonly authMethod?: string;
  readonly serviceName?: string;
}

/** `/v1/acl/token…`: SecretIDs are shown to `acl:write` callers, else `<hidden>`. */
export class MeshTokens {
  constructor(private readonly call: MeshCall) {}

  /** `PUT /v1/acl/token`. @throws MeshApiError 400 naming a bad field or unknown policy/role. */
  async create(input: MeshTokenInput): Promise<MeshToken> {
    return (await this.call<MeshToken>('PUT', '/acl/token', { body: input })).body;
  }

  /** `GET /v1/acl/token/:accessor`. @throws MeshApiError 404 when there is none. */
  async read(accessorId: string): Promise<MeshToken> {
    return (await this.call<MeshToken>('GET', `/acl/token/${seg(accessorId)}`)).body;
  }

  /** `GET /v1/acl/token/self`: the client's own token, with its SecretID. */
  async readSelf(): Promise<MeshToken> {
    return (await this.call<MeshToken>('GET', '/acl/token/self')).body;
  }

  /**
   * `PUT /v1/acl/token/:accessor`: replaces the description, links and identities (the
   * secret, locality and expiry cannot change). @throws MeshApiError 404 / 400.
   */
  async update(accessorId: string, input: MeshTokenInput): Promise<MeshToken> {
    return (await this.call<MeshToken>('PUT', `/acl/token/${seg(accessorId)}`, { body: { ...input, AccessorID: accessorId } })).body;
  }

  /** `PUT /v1/acl/token/:accessor/clone`: a copy with new IDs (and `description`, when given). */
  async clone(accessorId: string, description?: string): Promise<MeshToken> {
    const body = description === undefined ? {} : { Description: description };
    return (await this.call<MeshToken>('PUT', `/acl/token/${seg(accessorId)}/clone`, { body })).body;
  }

  /** `DELETE /v1/acl/token/:accessor` (deleting a missing token succeeds). */
  async delete(accessorId: string): Promise<void> {
    await this.call('DELETE', `/acl/token/${seg(accessorId)}`);
  }

  /** `GET /v1/acl/tokens`, filtered. */
  list(filter: MeshTokenFilter = {}): Promise<MeshList<MeshToken>> {
    const { policy, role, authMethod, serviceName, ...o } = filter;
    return list(this.call, '/acl/tokens', { policy, role, authmethod: authMethod, servicename: serviceName }, o);
  }
}

/** `/v1/acl/policy…`. */
export class MeshPolicies {
  constructor(private readonly call: MeshCall) {}

  /** `PUT /v1/acl/policy`. @throws MeshApiError 400 for a bad name, a taken name or bad rules. */
  async create(input: MeshPolicyInput): Promise<MeshPolicy> {
    return (await this.call<MeshPolicy>('PUT', '/acl/policy', { body: input })).body;
  }

  /** `GET /v1/acl/policy/:id`. @throws MeshApiError 404. */
  async read(id: string): Promise<MeshPolicy> {
    return (await this.call<MeshPolicy>('GET', `/acl/policy/${seg(id)}`)).body;
  }

  /** `GET /v1/acl/policy/name/:name`. @throws MeshApiError 404. */
  async readByName(name: string): Promise<MeshPolicy> {
    return (await this.call<MeshPolicy>('GET', `/acl/policy/name/${seg(name)}`)).body;
  }

  /** `PUT /v1/acl/policy/:id`: replaces every field. @throws MeshApiError 404 / 400. */
  async update(id: string, input: MeshPolicyInput): Promise<MeshPolicy> {
    return (await this.call<MeshPolicy>('PUT', `/acl/policy/${seg(id)}`, { body: { ...input, ID: id } })).body;
  }

  /** `DELETE /v1/acl/policy/:id`. @throws MeshApiError 400 for the built-in `global-management`. */
  async delete(id: string): Promise<void> {
    await this.call('DELETE', `/acl/policy/${seg(id)}`);
  }

  /** `GET /v1/acl/policies`: stubs without `Rules`. */
  list(o: MeshQueryOptions = {}): Promise<MeshList<MeshPolicy>> {
    return list(this.call, '/acl/policies', {}, o);
  }
}

/** `/v1/acl/role…`. */
export class MeshRoles {
  constructor(private readonly call: MeshCall) {}

  /** `PUT /v1/acl/role`. @throws MeshApiError 400. */
  async create(input: MeshRoleInput): Promise<MeshRole> {
    return (await this.call<MeshRole>('PUT', '/acl/role', { body: input })).body;
  }

  /** `GET /v1/acl/role/:id`. @throws MeshApiError 404. */
  async read(id: string): Promise<MeshRole> {
    return (await this.call<MeshRole>('GET', `/acl/role/${seg(id)}`)).body;
  }

  /** `GET /v1/acl/role/name/:name`. @throws MeshApiError 404. */
  async readByName(name: string): Promise<MeshRole> {
    return (await this.call<MeshRole>('GET', `/acl/role/name/${seg(name)}`)).body;
  }

  /** `PUT /v1/acl/role/:id`: replaces every field. @throws MeshApiError 404 / 400. */
  async update(id: string, input: MeshRoleInput): Promise<MeshRole> {
    return (await this.call<MeshRole>('PUT', `/acl/role/${seg(id)}`, { body: { ...input, ID: id } })).body;
  }

  /** `DELETE /v1/acl/role/:id`. */
  async delete(id: string): Promise<void> {
    await this.call('DELETE', `/acl/role/${seg(id)}`);
  }

  /** `GET /v1/acl/roles`, optionally only the roles linking policy ID `policy`. */
  list(o: MeshQueryOptions & { readonly policy?: string } = {}): Promise<MeshList<MeshRole>> {
    const { policy, ...q } = o;
    return list(this.call, '/acl/roles', { policy }, q);
  }
}

/** `/v1/acl/auth-method…`. */
export class MeshAuthMethods {
  constructor(private readonly call: MeshCall) {}

  /**
   * `PUT /v1/acl/auth-method` (an upsert, as the reference). @throws MeshApiError 400 for a
   * bad config, or a JWKS/discovery URL that does not answer.
   */
  async create(input: MeshAuthMethodInput): Promise<MeshAuthMethod> {
    return (await this.call<MeshAuthMethod>('PUT', '/acl/auth-method', { body: input })).body;
  }

  /** `GET /v1/acl/auth-method/:name`. @throws MeshApiError 404. */
  async read(name: string): Promise<MeshAuthMethod> {
    return (await this.call<MeshAuthMethod>('GET', `/acl/auth-method/${seg(name)}`)).body;
  }

  /** `PUT /v1/acl/auth-method/:name`: replaces every field (`Type` cannot change). @throws MeshApiError 400. */
  async update(name: string, input: Omit<MeshAuthMethodInput, 'Name'>): Promise<MeshAuthMethod> {
    return (await this.call<MeshAuthMethod>('PUT', `/acl/auth-method/${seg(name)}`, { body: { ...input, Name: name } })).body;
  }

  /** `DELETE /v1/acl/auth-method/:name`: also deletes its binding rules and the tokens it made. */
  async delete(name: string): Promise<void> {
    await this.call('DELETE', `/acl/auth-method/${seg(name)}`);
  }

  /** `GET /v1/acl/auth-methods`: stubs without `Config`. */
  list(o: MeshQueryOptions = {}): Promise<MeshList<MeshAuthMethod>> {
    return list(this.call, '/acl/auth-methods', {}, o);
  }
}

/** `/v1/acl/binding-rule…`. */
export class MeshBindingRules {
  constructor(private readonly call: MeshCall) {}

  /** `PUT /v1/acl/binding-rule`. @throws MeshApiError 400 for an unknown method, bad selector or bind name. */
  async create(input: MeshBindingRuleInput & { readonly AuthMethod: string }): Promise<MeshBindingRule> {
    return (await this.call<MeshBindingRule>('PUT', '/acl/binding-rule', { body: input })).body;
  }

  /** `GET /v1/acl/binding-rule/:id`. @throws MeshApiError 404. */
  async read(id: string): Promise<MeshBindingRule> {
    return (await this.call<MeshBindingRule>('GET', `/acl/binding-rule/${seg(id)}`)).body;
  }

  /** `PUT /v1/acl/binding-rule/:id`: replaces every field but `AuthMethod`. @throws MeshApiError 404 / 400. */
  async update(id: string, input: MeshBindingRuleInput): Promise<MeshBindingRule> {
    return (await this.call<MeshBindingRule>('PUT', `/acl/binding-rule/${seg(id)}`, { body: { ...input, ID: id } })).body;
  }

  /** `DELETE /v1/acl/binding-rule/:id`. */
  async delete(id: string): Promise<void> {
    await this.call('DELETE', `/acl/binding-rule/${seg(id)}`);
  }

  /** `GET /v1/acl/binding-rules`, optionally of one auth method. */
  list(o: MeshQueryOptions & { readonly authMethod?: string } = {}): Promise<MeshList<MeshBindingRule>> {
    const { authMethod, ...q } = o;
    return list(this.call, '/acl/binding-rules', { authmethod: authMethod }, q);
  }
}
