/**
 * `sys/policies/acl` and the legacy `sys/policy`: list, read, write and delete ACL
 * policies (reference/secrets.md §3.7). Errors are 400s naming the problem
 * (`'policy' parameter not supplied or empty`, `cannot update "root" policy`,
 * `failed to parse policy: …`); reading an unknown policy is a 404.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';

const PolicyText = Type.String({ description: 'the policy document: HCL or JSON, optionally base64-encoded' });
const NAME_PARAM = { name: 'name of the policy (case-insensitive)' };

/** Standard base64 with padding, as the reference accepts for `policy` (`base64.StdEncoding`). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The policy text of a write: base64 is decoded when it decodes to UTF-8 text, like the reference. */
function policyText(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : '';
  if (!BASE64.test(text)) return text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'));
  } catch {
    return text;
  }
}

/** Stored names plus `root`, which every installation lists last (reference `handlePoliciesList`). */
async function names(req: SecretsRequest): Promise<string[]> {
  return [...(await req.ns.policies.list()), 'root'];
}

async function remove(req: SecretsRequest): Promise<undefined> {
  await req.ns.policies.delete(req.params.name);
  return undefined;
}

const aclListPath: SecretsPath = {
  pattern: 'policies/acl',
  synopsis: 'List the ACL policies',
  operations: {
    list: { summary: 'List ACL policies', handle: async (req) => ({ data: { keys: await names(req) } }) },
  },
};

const aclPath: SecretsPath = {
  pattern: 'policies/acl/:name',
  synopsis: 'Read, write or delete an ACL policy',
  description:
    'A policy is a set of `path "<pattern>" { capabilities = [...] }` rules, in HCL or JSON. `root` cannot be written or deleted; `default` cannot be deleted.',
  params: NAME_PARAM,
  fields: { policy: PolicyText },
  operations: {
    read: {
      summary: 'Read an ACL policy',
      fields: {},
      handle: async (req) => {
        const p = await req.ns.policies.get(req.params.name);
        if (!p) throw notFound();
        return { data: { name: p.name, policy: p.policy } };
      },
    },
    update: {
      summary: 'Create or replace an ACL policy',
      handle: async (req) => {
        await req.ns.policies.set(req.params.name, policyText(req.data.policy));
        return undefined;
      },
    },
    delete: { summary: 'Delete an ACL policy', fields: {}, handle: remove },
  },
};

const legacyListPath: SecretsPath = {
  pattern: 'policy',
  synopsis: 'List the ACL policies (legacy endpoint)',
  operations: {
    read: { summary: 'List ACL policies', handle: legacyList },
    list: { summary: 'List ACL policies', handle: legacyList },
  },
};

async function legacyList(req: SecretsRequest): Promise<SecretsResult> {
  const keys = await names(req);
  return { data: { keys, policies: keys }, topLevel: true };
}

const legacyPath: SecretsPath = {
  pattern: 'policy/:name',
  synopsis: 'Read, write or delete an ACL policy (legacy endpoint)',
  params: NAME_PARAM,
  fields: { policy: PolicyText, rules: { ...PolicyText, description: 'deprecated alias of "policy"' } },
  operations: {
    read: {
      summary: 'Read an ACL policy',
      fields: {},
      handle: async (req) => {
        const p = await req.ns.policies.get(req.params.name);
        if (!p) throw notFound();
        return { data: { name: p.name, rules: p.policy }, topLevel: true };
      },
    },
    update: {
      summary: 'Create or replace an ACL policy',
      handle: async (req) => {
        const useRules = (req.data.policy ?? '') === '' && req.data.rules !== undefined;
        await req.ns.policies.set(req.params.name, policyText(useRules ? req.data.rules : req.data.policy));
        return useRules ? { warnings: ["'rules' is deprecated, please use 'policy' instead"] } : undefined;
      },
    },
    delete: { summary: 'Delete an ACL policy', fields: {}, handle: remove },
  },
};

/** The policy families of the system backend. */
export const policiesPaths: readonly SecretsPath[] = [aclListPath, aclPath, legacyListPath, legacyPath];
