/**
 * ACL bootstrap and the objects every ACL-enabled datacenter starts with
 * (reference/mesh.md §1, §6.1; spec 001 "States and transitions"):
 *
 * - built-in policies (`global-management`, `builtin/global-read-only`) and the anonymous
 *   token exist once ACLs are on;
 * - `acl.tokens.initial_management` makes its management token at start: through the
 *   bootstrap itself while bootstrap is still possible (which uses it up), else as a plain
 *   token;
 * - `PUT /acl/bootstrap` succeeds exactly once (one state transaction decides, so of any
 *   number of concurrent calls one wins); afterwards it is 403 with the reset index, unless
 *   `<data_dir>/acl-bootstrap-reset` holds that index (the file is then removed, so it works
 *   once).
 *
 * @module
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Indexed, StateStore, Txn } from '../../kernel/store/index.js';
import {
  ANONYMOUS_TOKEN_ACCESSOR_ID,
  ANONYMOUS_TOKEN_DESCRIPTION,
  ANONYMOUS_TOKEN_SECRET_ID,
  BUILTIN_POLICIES,
  GLOBAL_MANAGEMENT_POLICY,
  permissionDeniedBecause,
  policyHash,
} from './acl/index.js';
import { meshBadRequest, meshForbidden } from './http.js';
import { UUID_RE } from './links.js';
import { secretKey, T, type BootstrapDoc, type PolicyDoc, type TokenDoc } from './state.js';
import { newId, withHash } from './token-write.js';

/** The reset file's name in the data directory (reference/mesh.md §1). */
const RESET_FILE = 'acl-bootstrap-reset';

/** The bootstrap token's description (reference/mesh.md §1). */
const BOOTSTRAP_DESCRIPTION = 'Bootstrap Token (Global Management)';
/** The description of the token made from `initial_management`. */
export const INITIAL_MANAGEMENT_DESCRIPTION = 'Initial Management Token';

/** Creates the built-in policies and the anonymous token when missing. */
export async function ensureBuiltins(state: StateStore, nowMs: number): Promise<void> {
  await state.txn((tx) => {
    for (const p of BUILTIN_POLICIES.values()) {
      if (tx.get(T.policies, p.id)) continue;
      const doc: PolicyDoc = {
        ID: p.id,
        Name: p.name,
        Description: p.description,
        Rules: p.rules,
        Hash: policyHash({ name: p.name, description: p.description, rules: p.rules, datacenters: [] }),
      };
      tx.put(T.policies, p.id, doc);
    }
    if (!tx.get(T.tokens, ANONYMOUS_TOKEN_ACCESSOR_ID)) {
      tx.put(
        T.tokens,
        ANONYMOUS_TOKEN_ACCESSOR_ID,
        management({ accessor: ANONYMOUS_TOKEN_ACCESSOR_ID, secret: ANONYMOUS_TOKEN_SECRET_ID, description: ANONYMOUS_TOKEN_DESCRIPTION, nowMs, policies: [] }),
      );
    }
  });
}

/**
 * Makes the `initial_management` token when no token has that secret: by bootstrapping
 * when bootstrap is still possible, else as a plain token. Returns what it did.
 */
export async function ensureInitialManagement(state: StateStore, secret: string, nowMs: number): Promise<'bootstrapped' | 'created' | 'exists'> {
  const { result } = await state.txn((tx) => {
    if (tx.getBy(T.tokens, 'secret', secretKey(secret))) return 'exists' as const;
    const token = management({ accessor: newId(), secret, description: INITIAL_MANAGEMENT_DESCRIPTION, nowMs, policies: [GLOBAL_MANAGEMENT_POLICY.id] });
    tx.put(T.tokens, token.AccessorID, token);
    if (tx.get(T.meta, 'bootstrap')) return 'created' as const;
    tx.put<BootstrapDoc>(T.meta, 'bootstrap', { ID: 'bootstrap', BootstrapIndex: tx.index });
    return 'bootstrapped' as const;
  });
  return result;
}

/**
 * `PUT /acl/bootstrap`: the first management token, with `bootstrapSecret` as its secret
 * when given. @throws 400 when the secret is not a UUID or is in use; 403 `Permission
 * denied: ACL bootstrap no longer allowed (reset index: N)` once bootstrapped (also for a
 * reset file with another index: the reference's 500 for that is a client error).
 */
export async function bootstrap(state: StateStore, dataDir: string, bootstrapSecret: unknown, nowMs: number): Promise<TokenDoc & Indexed> {
  if (bootstrapSecret !== undefined && bootstrapSecret !== '' && (typeof bootstrapSecret !== 'string' || !UUID_RE.test(bootstrapSecret))) {
    throw meshBadRequest('BootstrapSecret must be a UUID');
  }
  const done = state.get<BootstrapDoc>(T.meta, 'bootstrap');
  const resetIndex = done ? readResetIndex(dataDir) : undefined;
  if (done && resetIndex !== done.BootstrapIndex) {
    const text =
      resetIndex === undefined
        ? `ACL bootstrap no longer allowed (reset index: ${done.BootstrapIndex})`
        : `Invalid bootstrap reset index (specified ${resetIndex}, reset index: ${done.BootstrapIndex})`;
    throw meshForbidden(permissionDeniedBecause(text).message);
  }
  const { result } = await state.txn((tx: Txn) => {
    // Decided inside the transaction: of concurrent calls, only the first finds the state unchanged.
    const now = tx.get<BootstrapDoc>(T.meta, 'bootstrap');
    if (now && now.BootstrapIndex !== resetIndex) {
      throw meshForbidden(permissionDeniedBecause(`ACL bootstrap no longer allowed (reset index: ${now.BootstrapIndex})`).message);
    }
    const secret = typeof bootstrapSecret === 'string' && bootstrapSecret !== '' ? bootstrapSecret.toLowerCase() : newId();
    if (tx.getBy(T.tokens, 'secret', secretKey(secret)) || tx.get(T.tokens, secret)) throw meshBadRequest('BootstrapSecret is already in use');
    const token = management({ accessor: newId(), secret, description: BOOTSTRAP_DESCRIPTION, nowMs, policies: [GLOBAL_MANAGEMENT_POLICY.id] });
    tx.put<BootstrapDoc>(T.meta, 'bootstrap', { ID: 'bootstrap', BootstrapIndex: tx.index });
    return tx.put(T.tokens, token.AccessorID, token);
  });
  // Used once: a later restore of old state cannot reuse it (reference/mesh.md §1 step 4).
  if (resetIndex !== undefined) rmSync(join(dataDir, RESET_FILE), { force: true });
  return result;
}

function management(o: { accessor: string; secret: string; description: string; nowMs: number; policies: string[] }): TokenDoc {
  return withHash({
    AccessorID: o.accessor,
    SecretID: o.secret,
    Description: o.description,
    Policies: o.policies.map((ID) => ({ ID })),
    Roles: [],
    ServiceIdentities: [],
    NodeIdentities: [],
    Local: false,
    CreateTime: new Date(o.nowMs).toISOString(),
  });
}

/** The index in the reset file; undefined when it is missing or not a number. */
function readResetIndex(dataDir: string): number | undefined {
  try {
    const text = readFileSync(join(dataDir, RESET_FILE), 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
