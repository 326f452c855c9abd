/**
 * What the shared ACL screens (AclObjects.tsx) need to know of a service's ACL API: for
 * each kind of object its list and read paths, its ID and columns; how a policy and a
 * token are written. The discovery and scheduler APIs differ in paths, IDs and bodies
 * (reference/mesh.md §6, the scheduler's `command/agent/acl_endpoint.go`).
 */
import type { ReactNode } from 'react';
import type { Section } from '../../api/client';

export type Row = Record<string, unknown>;

/** One kind of ACL object (tokens, policies, roles, auth methods, binding rules). */
export interface AclKind {
  /** The URL segment: `tokens`, `policies`, `roles`, `auth-methods`, `binding-rules`. */
  readonly slug: string;
  readonly title: string;
  /** The list path (`/v1/acl/tokens`). */
  readonly list: string;
  /** The object's ID in its paths, from a list row. */
  idOf(row: Row): string;
  /** The object's read path. */
  read(id: string): string;
  /** The object's delete path, when the screen offers delete. */
  remove?(id: string): string;
  readonly columns: ReadonlyArray<readonly [string, (row: Row) => ReactNode]>;
  /** The create form the kind has, if any: the policy editor, the token form, or a {@link AclForm} of fields. */
  readonly create?: 'policy' | 'token';
  /** A create form described by its fields (roles, auth methods, binding rules); AclForm.tsx renders it. */
  readonly form?: AclForm;
}

/** One labelled field of an {@link AclForm}; every value is kept as the text typed. */
export interface FormField {
  /** The key of the value handed to {@link AclForm.write}. */
  readonly name: string;
  readonly label: string;
  /** `text` (default); `select` of `options`; `json` (a text area, parsed on submit); `checkbox` (`'true'` or `''`). */
  readonly type?: 'text' | 'select' | 'json' | 'checkbox';
  readonly options?: readonly string[];
  readonly required?: boolean;
  /** A line under the field saying what it takes. */
  readonly hint?: string;
  /** The value the form starts with. */
  readonly initial?: string;
}

/** A create form: its fields and the write they make. */
export interface AclForm {
  /** What is created, for the button and heading: `role`, `auth method`, `binding rule`. */
  readonly noun: string;
  readonly fields: readonly FormField[];
  /**
   * The write of the typed values (keys: the fields' names).
   * @throws Error naming the field when a value cannot be sent (JSON that does not parse).
   */
  write(values: Readonly<Record<string, string>>): Write;
}

/** A JSON field's value parsed; empty = `undefined`. @throws Error `<label>: <parse error>`. */
export function jsonField(text: string | undefined, label: string): unknown {
  if (!text?.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`);
  }
}

/** A comma-separated list field's names, blanks dropped. */
export const listField = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** A write: method, path and JSON body. */
interface Write {
  readonly method: 'PUT' | 'POST';
  readonly path: string;
  readonly body: unknown;
}

/** A service's ACL API as the screens use it. */
export interface AclService {
  readonly section: Section;
  /** Route prefix: `/discovery/acl`. */
  readonly base: string;
  readonly kinds: readonly AclKind[];
  /** The write of a policy; `id` set for an update of an existing one. */
  writePolicy(p: { id?: string; name: string; description: string; rules: string }): Write;
  /** The create of a token linking `policies` (names). */
  createToken(t: { description: string; policies: string[] }): Write;
  /** A policy's name from its list row (the token form's choices). */
  policyName(row: Row): string;
}

export const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** Names of linked objects: `[{Name}]` (discovery, scheduler roles) or `["name"]` (scheduler tokens). */
export const names = (v: unknown): string =>
  Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : str((x as { Name?: unknown }).Name))).join(', ') : '';

/** `body` without its empty fields (`''`, `undefined`), so the server applies its defaults. */
export function compact(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== '' && v !== undefined));
}
