// Tests of healthCode: every state's default, each override, and the precedence of
// reference/secrets.md §3.4, standby branches included (a single server never reaches them).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { healthCode, type HealthState } from './health.js';

const active: HealthState = { initialized: true, sealed: false, standby: false, performanceStandby: false, drSecondary: false };

describe('healthCode', () => {
  it('gives each state its default code', () => {
    assert.equal(healthCode(active, {}), 200);
    assert.equal(healthCode({ ...active, standby: true }, {}), 429);
    assert.equal(healthCode({ ...active, drSecondary: true }, {}), 472);
    assert.equal(healthCode({ ...active, performanceStandby: true, standby: true }, {}), 473);
    assert.equal(healthCode({ ...active, initialized: false, sealed: true }, {}), 501);
    assert.equal(healthCode({ ...active, sealed: true, standby: true }, {}), 503);
  });

  it('answers activecode to a standby with standbyok, and to a performance standby with perfstandbyok', () => {
    assert.equal(healthCode({ ...active, standby: true }, { standbyok: true }), 200);
    assert.equal(healthCode({ ...active, standby: true }, { standbyok: true, activecode: 204 }), 204);
    assert.equal(healthCode({ ...active, standby: true }, { standbyok: false }), 429);
    const perf = { ...active, performanceStandby: true, standby: true };
    assert.equal(healthCode(perf, { standbyok: true }), 473, 'standbyok alone does not cover a performance standby');
    assert.equal(healthCode(perf, { perfstandbyok: true }), 200, 'perfstandbyok alone is enough (reference http/sys_health.go)');
    assert.equal(healthCode(perf, { perfstandbyok: true, standbyok: true }), 200);
  });

  it('takes every code override', () => {
    assert.equal(healthCode(active, { activecode: 299 }), 299);
    assert.equal(healthCode({ ...active, standby: true }, { standbycode: 200 }), 200);
    assert.equal(healthCode({ ...active, drSecondary: true }, { drsecondarycode: 200 }), 200);
    assert.equal(healthCode({ ...active, performanceStandby: true }, { performancestandbycode: 200 }), 200);
    assert.equal(healthCode({ ...active, initialized: false }, { uninitcode: 200 }), 200);
    assert.equal(healthCode({ ...active, sealed: true }, { sealedcode: 200 }), 200);
  });

  it('checks initialised before sealed before the standby states', () => {
    const q = { uninitcode: 1, sealedcode: 2, drsecondarycode: 3, performancestandbycode: 4, standbycode: 5 };
    assert.equal(healthCode({ initialized: false, sealed: true, standby: true, performanceStandby: true, drSecondary: true }, q), 1);
    assert.equal(healthCode({ initialized: true, sealed: true, standby: true, performanceStandby: true, drSecondary: true }, q), 2);
    assert.equal(healthCode({ ...active, standby: true, performanceStandby: true, drSecondary: true }, q), 3);
  });
});
