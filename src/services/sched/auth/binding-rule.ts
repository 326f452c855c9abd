/**
 * The scheduler's ACL binding rule (reference/sched.md §2.4): its shape, request decoding
 * with Nomad's case-insensitive field names, and the upsert's lookup / merge / validate
 * steps with the reference's texts. Pure: the caller supplies the stored rule and auth
 * methods and the clock, and stores the result (assigning `CreateIndex` / `ModifyIndex`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { AuthnError, checkBindingRule, SCHED_BIND_PROFILE } from '../../../kernel/authn/index.js';
import { compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import type { AuthMethod } from './auth-method.js';
import { decodeStruct } from './decode.js';
import { Go, goStructOf } from '../../../kernel/util/go-schema.js';
import { invalidRequest, multiError } from './errors.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { contentHash } from './stamp.js';

/** Bind types (sched.md §2.4): a role or policy by name, or a management token. */
const BIND_TYPES = ['role', 'policy', 'management'] as const;
/** Longest `Description`, in bytes as Go's `len` counts (sched.md §2.4). */
const MAX_DESCRIPTION_BYTES = 256;

/** What a request body decodes to: every field present, `""` when absent. */
export interface BindingRuleInput {
  /** UUID; empty on create (generated). */
  readonly ID: string;
  readonly Description: string;
  /** Name of the auth method whose logins the rule applies to. */
  readonly AuthMethod: string;
  /** go-bexpr expression over the login's claim data (`value.*`, `list.*`); empty matches every login. */
  readonly Selector: string;
  /** One of {@link BIND_TYPES}. */
  readonly BindType: string;
  /** Role or policy name, HIL-interpolated at login (`${value.team}`); empty for `management`. */
  readonly BindName: string;
}

/** A stored binding rule, which is also its read shape (sched.md §2.4). */
export interface BindingRule extends BindingRuleInput {
  /** {@link contentHash} of the fields a write sets. */
  readonly Hash: string;
  /** RFC3339 UTC, set on the first write. */
  readonly CreateTime: string;
  /** RFC3339 UTC, set on every write. */
  readonly ModifyTime: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The list item of `GET /v1/acl/binding-rules` (sched.md §2.4). */
export interface BindingRuleStub {
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/**
 * The body of a binding-rule write (the reference's `structs.ACLBindingRule`), declared by its
 * routes (routes/binding-rules.ts); server-set fields are ignored. Its routes read `null` as
 * `{}`, as Go's decoder does.
 */
export const BindingRuleBody = Go.struct(
  'ACLBindingRule',
  {
    ID: Go.string('empty on create'),
    Description: Go.string(),
    AuthMethod: Go.string(),
    Selector: Go.string('a go-bexpr expression over the claims'),
    BindType: Go.string('role, policy or management'),
    BindName: Go.string(),
  },
  { typePrefix: 'structs.' },
);

/**
 * Decodes a request body as the kernel decodes {@link BindingRuleBody} for its routes
 * (sched.md §1.1): case-insensitive field names, unknown and server-set fields ignored.
 * @throws {SchedAuthError} 400 with the Go decoder's text, e.g.
 *   `json: cannot unmarshal number into Go struct field ACLBindingRule.BindName of type string`.
 */
export function decodeBindingRule(body: unknown): BindingRuleInput {
  return decodeStruct(body, goStructOf(BindingRuleBody)) as unknown as BindingRuleInput;
}

/** Options of {@link validateBindingRule}. */
export interface ValidateBindingRuleOptions {
  /** Every stored auth method (the rule's must be among them). */
  readonly authMethods: readonly AuthMethod[];
  /** The stored rule whose ID the input names; absent with a non-empty ID is an error. */
  readonly existing?: BindingRule;
  readonly now: Date;
  /** Position in the upsert request, for the `binding rule <i> invalid` text; 0 for the HTTP API. */
  readonly index?: number;
  /** ID of a new rule; a random UUID when absent. */
  readonly newId?: () => string;
}

/**
 * The upsert of one binding rule (sched.md §2.4), in the reference's order:
 * 1. a non-empty `ID` must name `existing`, else 400 `cannot find binding rule <id>`;
 *    `BindName`, `BindType`, `AuthMethod` are then taken from it when empty (except that a
 *    rule turned into `management` does not inherit a name it must not have), and another
 *    `AuthMethod` is 400 `cannot update auth method for binding rule, create a new rule instead`;
 * 2. validation, every error collected (400 `binding rule <i> invalid: <go-multierror>`):
 *    `auth method is missing`, `description longer than 256`, `bind type is missing`,
 *    `bind name is missing` (role, policy), `bind name should be empty` (management),
 *    `unsupported bind type: "<x>"`, `selector is invalid: <err>`, and the kernel's
 *    write-time bind-name check (`error interpreting template: unknown variable accessed: value.x`
 *    when the method maps no such claim);
 * 3. the auth method must exist: 400 `ACL auth method <name> not found`.
 * Returns the rule to store, with `CreateIndex` / `ModifyIndex` carried from `existing`.
 *
 * @throws {SchedAuthError} 400 with the texts above.
 */
export function validateBindingRule(input: BindingRuleInput, opts: ValidateBindingRuleOptions): BindingRule {
  const old = opts.existing;
  if (input.ID !== '' && !old) throw invalidRequest(`cannot find binding rule ${input.ID}`);
  const bindType = input.BindType || old?.BindType || '';
  const r: BindingRuleInput = {
    ID: old?.ID ?? (opts.newId ?? randomUUID)(),
    Description: input.Description,
    AuthMethod: input.AuthMethod || old?.AuthMethod || '',
    Selector: input.Selector,
    BindType: bindType,
    BindName: input.BindName || (bindType === 'management' ? '' : (old?.BindName ?? '')),
  };
  if (old && r.AuthMethod !== old.AuthMethod) {
    throw invalidRequest('cannot update auth method for binding rule, create a new rule instead');
  }
  const method = opts.authMethods.find((m) => m.Name === r.AuthMethod);

  const errors: string[] = [];
  if (r.AuthMethod === '') errors.push('auth method is missing');
  if (Buffer.byteLength(r.Description) > MAX_DESCRIPTION_BYTES) errors.push(`description longer than ${MAX_DESCRIPTION_BYTES}`);
  let typeOk = false;
  if (r.BindType === '') errors.push('bind type is missing');
  else if (r.BindType === 'role' || r.BindType === 'policy') {
    if (r.BindName === '') errors.push('bind name is missing');
    else typeOk = true;
  } else if (r.BindType === 'management') {
    if (r.BindName !== '') errors.push('bind name should be empty');
  } else errors.push(`unsupported bind type: ${JSON.stringify(r.BindType)}`);
  if (r.Selector !== '') {
    try {
      compileFilter(r.Selector);
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      errors.push(`selector is invalid: ${err.message}`);
    }
  }
  if (typeOk && method) {
    // Cairn checks at write time that the name interpolates with the claims the method maps,
    // so a typo fails here rather than at every login.
    const vars = Object.values(method.Config?.ClaimMappings ?? {}).map((k) => `value.${k}`);
    try {
      checkBindingRule({ selector: r.Selector, bindType: r.BindType, bindName: r.BindName }, vars, SCHED_BIND_PROFILE);
    } catch (err) {
      if (!(err instanceof AuthnError)) throw err;
      errors.push(err.message);
    }
  }
  if (errors.length > 0) throw invalidRequest(`binding rule ${opts.index ?? 0} invalid: ${multiError(errors)}`);
  if (!method) throw invalidRequest(`ACL auth method ${r.AuthMethod} not found`);

  const now = formatTime(opts.now);
  return {
    ...r,
    Hash: contentHash([r.ID, r.Description, r.AuthMethod, r.Selector, r.BindType, r.BindName]),
    CreateTime: old?.CreateTime ?? now,
    ModifyTime: now,
    CreateIndex: old?.CreateIndex ?? 0,
    ModifyIndex: old?.ModifyIndex ?? 0,
  };
}

/** The list item of a rule (sched.md §2.4). */
export function bindingRuleStub(r: BindingRule): BindingRuleStub {
  return { ID: r.ID, Description: r.Description, AuthMethod: r.AuthMethod, Hash: r.Hash, CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex };
}
