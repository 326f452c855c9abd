// Tests of the response envelope's text (issue 15: written field by field, with shared
// reply data spliced in as serialised once): byte for byte what JSON.stringify of the
// envelope object gives, for every kind of result.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderResult, sharedReplyData, type RenderInput } from './envelope.js';
import type { SecretsResult } from './types.js';

/** The envelope as JSON.stringify of the object writes it (reference/secrets.md §1.3). */
function expected(r: RenderInput, result: SecretsResult): string {
  const warnings = [...(result.warnings ?? []), ...(r.ignored.length ? [`Endpoint ignored these unrecognized parameters: [${r.ignored.join(' ')}]`] : [])];
  const envelope = {
    request_id: r.requestId,
    lease_id: '',
    renewable: false,
    lease_duration: result.leaseDuration ?? 0,
    data: result.data ?? null,
    wrap_info: null,
    warnings: warnings.length ? warnings : null,
    auth: result.auth ?? null,
    mount_type: r.mountType,
  };
  return JSON.stringify(result.topLevel && result.data ? { ...result.data, ...envelope } : envelope);
}

describe('response envelope', () => {
  it('writes the same text as JSON.stringify of the envelope object, whatever the result holds', () => {
    const results: SecretsResult[] = [
      { data: { a: 1, nested: { list: [1, 'two', null, true], s: 'quote " backslash \\ newline \n unicode é € 😀 \u2028' } } },
      { data: null, warnings: ['careful'] },
      { data: { x: 1 }, leaseDuration: 2764800, status: 404 },
      { data: { keys: ['a/', 'b'] }, topLevel: true },
      {
        auth: {
          client_token: 'cs.x',
          accessor: 'acc',
          policies: ['default'],
          token_policies: ['default'],
          metadata: { user: 'u' },
          lease_duration: 60,
          renewable: true,
          entity_id: '',
          token_type: 'service',
          orphan: true,
          mfa_requirement: null,
          num_uses: 0,
        },
      },
      { data: sharedReplyData({ data: { password: 'p' }, metadata: { version: 3, custom_metadata: { owner: 'me' } } }) },
    ];
    for (const result of results)
      for (const ignored of [[], ['extra', 'other']]) {
        const input: RenderInput = { requestId: 'f0e1d2c3-0000-4000-8000-000000000001', operation: 'read', mountType: 'kv', result, ignored };
        const reply = renderResult(input);
        assert.equal(reply.status, result.status ?? 200);
        assert.equal(reply.body, expected(input, result), JSON.stringify(result));
      }
  });

  it('shared reply data is frozen and reused: two replies carry the same data text with their own request ids', () => {
    const data = sharedReplyData({ data: { password: 'p1' }, metadata: { version: 1 } });
    assert.ok(Object.isFrozen(data) && Object.isFrozen(data.data) && Object.isFrozen(data.metadata));
    assert.throws(() => {
      (data.data as Record<string, unknown>).password = 'changed';
    }, TypeError);
    const a = JSON.parse(renderResult({ requestId: 'a', operation: 'read', mountType: 'kv', result: { data }, ignored: [] }).body as string);
    const b = JSON.parse(renderResult({ requestId: 'b', operation: 'read', mountType: 'kv', result: { data }, ignored: [] }).body as string);
    assert.deepEqual([a.request_id, b.request_id], ['a', 'b']);
    assert.deepEqual(a.data, { data: { password: 'p1' }, metadata: { version: 1 } });
    assert.deepEqual(b.data, a.data);
  });
});
