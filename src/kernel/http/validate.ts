/**
 * Input validation for declared fields: one JSON Schema per operation, compiled once by
 * ajv (the secrets service: on the operation's first request), weak type coercion like
 * the reference's field decoding (`"5"` → 5 for an integer field, reference/secrets.md
 * §2.6 "weakly decoded").
 *
 * Input rules taken from the clients people use (reference/clients.md):
 * - unknown fields are ignored and reported back as a warning, never rejected;
 * - a JSON `null` means "not set".
 *
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Type, type TSchema } from '@sinclair/typebox';
import { badRequest } from './errors.js';

const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false });

/** The result of validating one request's input. */
export interface ValidatedInput {
  /** Declared fields that were present (coerced, defaults applied). */
  readonly data: Record<string, unknown>;
  /** Names of present fields the operation does not declare, sorted. */
  readonly ignored: readonly string[];
}

/** A compiled validator for one operation's fields. */
export class FieldValidator {
  private readonly check: ValidateFunction;
  private readonly names: ReadonlySet<string>;

  /**
   * Compiles the schema for `fields`; throws at startup with `where` (method and
   * pattern) in the message when a schema is invalid.
   */
  constructor(fields: Readonly<Record<string, TSchema>>, required: readonly string[], where: string) {
    const props: Record<string, TSchema> = {};
    for (const [k, s] of Object.entries(fields)) props[k] = required.includes(k) ? s : Type.Optional(s);
    try {
      this.check = ajv.compile(Type.Object(props, { additionalProperties: true }));
    } catch (err) {
      throw new Error(`invalid field schema for ${where}: ${(err as Error).message}`);
    }
    this.names = new Set(Object.keys(fields));
  }

  /**
   * Validates `input` (body object or query map). Throws a 400 naming the first bad
   * field. Never mutates `input`.
   */
  validate(input: Record<string, unknown>): ValidatedInput {
    const data: Record<string, unknown> = {};
    const ignored: string[] = [];
    for (const [k, v] of Object.entries(input)) {
      if (v === null) continue;
      if (this.names.has(k)) data[k] = copyJson(v);
      else ignored.push(k);
    }
    if (!this.check(data)) throw badRequest(describe(this.check.errors?.[0]));
    return { data, ignored: ignored.sort() };
  }
}

/**
 * A deep copy of a JSON value (what `JSON.parse` or a query map yields: plain objects,
 * arrays, primitives), so ajv's coercion and defaults never change the caller's input.
 * About a tenth of `structuredClone`'s cost on a KV write's data (issue 15). Keys are
 * defined as own properties, so a `__proto__` key stays data. Other objects are
 * returned as they are.
 */
function copyJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyJson);
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = copyJson((v as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

function describe(e: ErrorObject | undefined): string {
  if (!e) return 'invalid input';
  if (e.keyword === 'required') return `missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  const field = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return `field "${field}": ${e.message ?? 'is invalid'}`;
}
