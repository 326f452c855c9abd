/**
 * Request bodies of the domain API, checked the reference's way: every problem is
 * collected per field and answered at once as 400 `InvalidArgument` "Error in provided
 * request." with `details.request_fields` (errors.ts); unknown fields are refused (the
 * reference's protojson decoding refuses them too). Nothing is changed on a 400.
 *
 * @module
 */
import { parseJsonBody } from '../../../kernel/http/index.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { GatewayApiError, invalidFields } from './errors.js';

/** A JSON object body with per-field checks; see the module doc. */
export class Input {
  private readonly bad: Record<string, string> = {};
  private readonly seen = new Set<string>();

  private constructor(readonly raw: Readonly<Record<string, unknown>>) {}

  /**
   * Decodes `body` (empty → `{}`).
   * @throws 400 `InvalidArgument` when it is not JSON or not an object.
   */
  static parse(body: Buffer): Input {
    if (body.length === 0) return new Input({});
    let v: unknown;
    try {
      v = parseJsonBody(body);
    } catch (err) {
      throw new GatewayApiError('bad_request', 'InvalidArgument', `Error parsing request body: ${(err as Error).message}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new GatewayApiError('bad_request', 'InvalidArgument', 'Error parsing request body: the body must be a JSON object.');
    return new Input(v as Record<string, unknown>);
  }

  /** Records a problem with `field`. */
  fail(field: string, description: string): void {
    this.bad[field] ??= description;
  }

  /** Whether no problem has been recorded so far, here or in a nested object (expensive checks run only then). */
  isClean(): boolean {
    return Object.keys(this.bad).length === 0 && this.children.every(([, sub]) => sub.isClean());
  }

  /** Whether `field` was sent (`null` counts: it clears). */
  has(field: string): boolean {
    this.seen.add(field);
    return Object.hasOwn(this.raw, field);
  }

  /** A string field; `null` → null (clear); absent → undefined. Records a problem when it is another type. */
  string(field: string, o: { required?: boolean; nonEmpty?: boolean } = {}): string | null | undefined {
    this.seen.add(field);
    const v = this.raw[field];
    if (v === undefined || (v === null && o.required)) {
      if (o.required) this.fail(field, 'This field is required.');
      return undefined;
    }
    if (v === null) return null;
    if (typeof v !== 'string') return (this.fail(field, 'Must be a string.'), undefined);
    if ((o.required || o.nonEmpty) && v.trim() === '') return (this.fail(field, 'Must not be empty.'), undefined);
    return v;
  }

  /** A list of strings; absent → undefined. */
  strings(field: string, o: { required?: boolean } = {}): string[] | undefined {
    this.seen.add(field);
    const v = this.raw[field];
    if (v === undefined || v === null) {
      if (o.required) this.fail(field, 'This field is required.');
      return undefined;
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) return (this.fail(field, 'Must be a list of non-empty strings.'), undefined);
    return v as string[];
  }

  /** An integer field; absent → undefined. */
  int(field: string, o: { min?: number } = {}): number | undefined {
    this.seen.add(field);
    const v = this.raw[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < (o.min ?? 0))
      return (this.fail(field, `Must be an integer of at least ${o.min ?? 0}.`), undefined);
    return v;
  }

  /** A boolean field; absent → undefined. */
  bool(field: string): boolean | undefined {
    this.seen.add(field);
    const v = this.raw[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') return (this.fail(field, 'Must be true or false.'), undefined);
    return v;
  }

  /** The object at `field` as an {@link Input} whose problems are reported as `field.<key>`; absent → an empty one. */
  object(field: string): Input {
    this.seen.add(field);
    const v = this.raw[field];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) this.fail(field, 'Must be an object.');
    const sub = new Input(isObject(v) ? v : {});
    this.children.push([field, sub]);
    return sub;
  }

  private readonly children: Array<[string, Input]> = [];

  /** The `version` of an update: required, a positive integer (the reference's check). */
  version(): number | undefined {
    const v = this.int('version', { min: 1 });
    if (v === undefined && !this.bad.version) this.fail('version', 'Existing resource version is required for an update.');
    return v;
  }

  /**
   * Ends the checks: fields read through `ignore` are allowed besides those read above.
   * @throws 400 `InvalidArgument` naming every bad or unknown field (nested ones as `a.b`).
   */
  done(...ignore: string[]): void {
    const all: Record<string, string> = {};
    const collect = (prefix: string, input: Input) => {
      for (const [k, v] of Object.entries(input.bad)) all[prefix + k] ??= v;
      for (const k of Object.keys(input.raw)) if (!input.seen.has(k) && !ignore.includes(prefix + k)) all[prefix + k] ??= 'Unknown field.';
      for (const [f, sub] of input.children) collect(`${prefix}${f}.`, sub);
    };
    collect('', this);
    if (Object.keys(all).length > 0) throw invalidFields(all);
  }
}
