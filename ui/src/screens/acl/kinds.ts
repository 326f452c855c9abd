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
  /** The create form the kind has, if any. */
  readonly create?: 'policy' | 'token';
}

/** A write: method, path and JSON body. */
export interface Write {
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
