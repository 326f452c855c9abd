/**
 * AclTokenResolver on a real state: lookup by the secret index with expiry, policies
 * parsed once per index, authorizers rebuilt when the token, a policy or a role changes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteBackend, StateStore, type TableSpec } from '../store/index.js';
import { AclTokenResolver } from './token-resolver.js';

interface Token {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly ExpirationTime?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-acl-resolver-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const key = (secret: string) => `k:${secret}`;
const TABLES: TableSpec[] = [{ name: 'tokens', indexes: { secret: (d: Token) => key(d.SecretID) } }, { name: 'policies' }, { name: 'roles' }];

describe('AclTokenResolver', () => {
  it('finds live tokens only, parses a policy once per index and rebuilds an authorizer after a policy write', async () => {
    const backend = SqliteBackend.open({ path: join(dir, 'state.db') });
    const state = await StateStore.open(backend, TABLES);
    let now = Date.parse('2026-01-01T00:00:00Z');
    let parses = 0;
    const resolver = new AclTokenResolver<Token, string, { built: number }>({
      state,
      tables: { tokens: 'tokens', policies: 'policies', roles: 'roles' },
      secretKey: key,
      parse: (rules) => (parses++, rules.toUpperCase()),
      now: () => now,
    });
    await state.txn((tx) => {
      tx.put('tokens', 'a', { AccessorID: 'a', SecretID: 's-a', ExpirationTime: '2026-01-01T01:00:00Z' });
      tx.put('policies', 'p', { Rules: 'r' });
    });
    const token = resolver.lookup('s-a')!;
    assert.equal(token.AccessorID, 'a');
    assert.equal(resolver.lookup('s-b'), undefined);

    assert.equal(resolver.policy('p', 1, 'r'), 'R');
    assert.equal(resolver.policy('p', 1, 'r'), 'R');
    assert.equal(resolver.policy('p', 2, 'r2'), 'R2');
    assert.equal(parses, 2);

    let builds = 0;
    const build = () => ({ built: ++builds });
    const first = resolver.authorizer(token, token.ModifyIndex, build);
    assert.equal(resolver.authorizer(token, token.ModifyIndex, build), first);
    await state.txn((tx) => tx.put('policies', 'p', { Rules: 'changed' }));
    assert.notEqual(resolver.authorizer(token, token.ModifyIndex, build), first);
    assert.equal(builds, 2);

    now = Date.parse('2026-01-01T01:00:00Z');
    assert.equal(resolver.lookup('s-a'), undefined, 'expired at its ExpirationTime');
    await backend.close();
  });
});
