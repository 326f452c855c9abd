/**
 * `batch_input` of the transit operations (reference/secrets-engines.md §6 "batch_input"):
 * when present, the top-level single-item fields are ignored and each item is processed on
 * its own; `data.batch_results` keeps the order, a failed item carries `{"error": …}` and
 * echoes its `reference`. Any failed item makes the reply's status 400, or
 * `partial_failure_response_code` when some items succeeded.
 *
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { CairnError, badRequest } from '../../../kernel/http/index.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { MAX_BATCH_ITEMS } from './limits.js';

/** One item's input: the declared per-item fields (strings, `key_version` an integer). */
export type BatchItem = Readonly<Record<string, unknown>>;

/** The `batch_input` field with the item fields `itemFields`. */
export const batchField = (itemFields: Readonly<Record<string, TSchema>>) =>
  Type.Array(Type.Object(Object.fromEntries(Object.entries(itemFields).map(([k, s]) => [k, Type.Optional(s)])), { additionalProperties: true }), {
    maxItems: MAX_BATCH_ITEMS,
    description: `items processed one by one (at most ${MAX_BATCH_ITEMS}); the top-level single-item fields are then ignored`,
  });

/** `partial_failure_response_code`: the status of a batch in which some items failed and some succeeded. */
export const partialFailureField = Type.Integer({ minimum: 200, maximum: 599, description: 'status of a partly failed batch (default 400)' });

/**
 * Runs `one` on each item of `req.data.batch_input`, or on the request's own fields when
 * there is no batch (then a 400 is thrown as it is). A {@link CairnError} of status 400 fails
 * only its item; any other error fails the request.
 */
export async function runBatch(req: SecretsRequest, one: (item: BatchItem) => Promise<Record<string, unknown>>): Promise<SecretsResult> {
  const batch = req.data.batch_input as readonly BatchItem[] | undefined;
  if (batch === undefined) return { data: await one(req.data) };
  if (batch.length === 0) throw badRequest('missing batch input to process');
  let failed = 0;
  const results: Record<string, unknown>[] = [];
  for (const item of batch) {
    const reference = typeof item.reference === 'string' ? { reference: item.reference } : {};
    try {
      results.push({ ...(await one(item)), ...reference });
    } catch (err) {
      if (!(err instanceof CairnError) || err.status !== 400) throw err;
      failed++;
      results.push({ error: err.messages.join('; '), ...reference });
    }
  }
  const partial = req.data.partial_failure_response_code as number | undefined;
  const status = failed === 0 ? undefined : failed < batch.length && partial ? partial : 400;
  return { data: { batch_results: results }, ...(status ? { status } : {}) };
}

/** A string item field decoded from base64 (undefined when absent or empty). */
export function optionalBase64(item: BatchItem, field: string, decode: (v: string, what: string) => Buffer): Buffer | undefined {
  const v = item[field];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw badRequest(`${field}: must be a base64 string`);
  return decode(v, field);
}
