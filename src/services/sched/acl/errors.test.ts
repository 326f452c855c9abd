// The ACL error texts and their HTTP mapping (reference/sched.md §1.2 step 3,
// command/agent/http.go errCodeFromHandler), and the built-in objects' values.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANONYMOUS_TOKEN, BOOTSTRAP_TOKEN_NAME, CLIENT_TOKEN_TYPE, MANAGEMENT_TOKEN_TYPE } from './builtin.js';
import { aclErrorStatus, PermissionDeniedError, permissionDenied, tokenExpired, tokenNotFound } from './errors.js';

describe('ACL errors', () => {
  it('uses the reference texts', () => {
    const denied = permissionDenied();
    assert.ok(denied instanceof PermissionDeniedError);
    assert.equal(denied.message, 'Permission denied');
    assert.equal(tokenNotFound().message, 'ACL token not found');
    assert.equal(tokenExpired().message, 'ACL token expired');
  });

  it('maps by suffix to 403 with the bare text', () => {
    assert.deepEqual(aclErrorStatus('Permission denied'), { status: 403, body: 'Permission denied' });
    assert.deepEqual(aclErrorStatus('rpc error: rpc error: Permission denied'), { status: 403, body: 'Permission denied' });
    assert.deepEqual(aclErrorStatus('rpc error: ACL token not found'), { status: 403, body: 'ACL token not found' });
    assert.equal(aclErrorStatus('volume in use: x'), undefined);
    assert.equal(aclErrorStatus('Permission denied: extra'), undefined);
  });
});

describe('built-in objects', () => {
  it('has the reference values', () => {
    assert.deepEqual(
      { ...ANONYMOUS_TOKEN, Policies: [...ANONYMOUS_TOKEN.Policies] },
      { AccessorID: 'anonymous', SecretID: '', Name: 'Anonymous Token', Type: 'client', Policies: ['anonymous'], Global: false },
    );
    assert.equal(CLIENT_TOKEN_TYPE, 'client');
    assert.equal(MANAGEMENT_TOKEN_TYPE, 'management');
    assert.equal(BOOTSTRAP_TOKEN_NAME, 'Bootstrap Token');
    assert.ok(Object.isFrozen(ANONYMOUS_TOKEN));
  });
});
