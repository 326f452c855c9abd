/**
 * Stored auth methods and binding rules (tables `acl-auth-methods`, keyed by `authMethodKey(ns, Name)`, and
 * `acl-binding-rules`, keyed by ID), in the reference's field names (reference/mesh.md
 * §4.1, §6.6).
 *
 * @module
 */
import type { AuthMethodType, WireConfig } from './auth-config.js';

/** A stored auth method. */
export interface AuthMethodDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly Name: string;
  readonly Type: AuthMethodType;
  readonly DisplayName: string;
  readonly Description: string;
  /** Longest lifetime of its login tokens in **nanoseconds** (Go's `time.Duration`); 0: none. */
  readonly MaxTokenTTL: number;
  /** `''` or `local`: login tokens are local; `global`: global (primary datacenter only). */
  readonly TokenLocality: '' | 'local' | 'global';
  readonly Config: WireConfig;
}

/** A stored binding rule. An empty `Selector` matches every identity. */
export interface BindingRuleDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Selector: string;
  readonly BindType: string;
  readonly BindName: string;
}
