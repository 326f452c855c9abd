/**
 * Shared pieces of the CSI tests: a single-node-writer mount capability and an assertion
 * that a call rejects with a given CSI error.
 */
import assert from 'node:assert/strict';
import { CsiError, type VolumeCapability } from '../index.js';

/** A mount volume capability, access mode SINGLE_NODE_WRITER. */
export const RWO: VolumeCapability = { accessType: { mount: { fsType: '', mountFlags: [] } }, accessMode: 'SINGLE_NODE_WRITER' };

/** Asserts `p` rejects with a {@link CsiError} of `code` whose details equal (string) or match (RegExp) `details`. */
export async function rejects(p: Promise<unknown>, code: string, details: RegExp | string): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CsiError, String(err));
    assert.equal(err.code, code, err.message);
    if (typeof details === 'string') assert.equal(err.details, details);
    else assert.match(err.details, details);
    return;
  }
  assert.fail('expected a rejection');
}
