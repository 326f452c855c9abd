/**
 * Every operation's field schema compiles (src/services/secrets/handler.ts
 * `compileEveryValidator`): the service compiles each validator on its operation's first
 * request, so a bad schema would otherwise show only when that operation is first called.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { compileEveryValidator } from '../../src/services/secrets/handler.js';

it("compiles every engine's and the seal's operation field schemas", () => {
  const n = compileEveryValidator();
  assert.ok(n > 250, `every operation compiled (${n})`);
});
