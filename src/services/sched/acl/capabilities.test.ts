// Shorthand expansion checked against the reference's lists (acl/policy.go
// expandNamespacePolicy, expandHostVolumePolicy, expandNamespaceCapabilities,
// expandVariablesCapabilities), written out here independently of the implementation.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expandHostVolumePolicy,
  expandNamespacePolicy,
  expandVariableCapabilities,
  impliedNamespaceCapabilities,
  NAMESPACE_CAPABILITIES,
} from './capabilities.js';

const REFERENCE_READ = [
  'list-jobs',
  'parse-job',
  'read-job',
  'csi-list-volume',
  'csi-read-volume',
  'read-job-scaling',
  'list-scaling-policies',
  'read-scaling-policy',
  'host-volume-read',
];
const REFERENCE_WRITE = [
  ...REFERENCE_READ,
  'scale-job',
  'submit-job',
  'dispatch-job',
  'read-logs',
  'read-fs',
  'alloc-exec',
  'alloc-lifecycle',
  'csi-mount-volume',
  'csi-write-volume',
  'submit-recommendation',
  'host-volume-create',
];
const REFERENCE_SCALE = ['list-scaling-policies', 'read-scaling-policy', 'read-job-scaling', 'scale-job', 'read-job', 'submit-recommendation'];

describe('expandNamespacePolicy', () => {
  it('expands each level exactly as the reference, in its order', () => {
    assert.deepEqual(expandNamespacePolicy('deny'), ['deny']);
    assert.deepEqual(expandNamespacePolicy('read'), REFERENCE_READ);
    assert.deepEqual(expandNamespacePolicy('write'), REFERENCE_WRITE);
    assert.deepEqual(expandNamespacePolicy('scale'), REFERENCE_SCALE);
  });

  it('keeps out of write what the reference grants only explicitly', () => {
    const write = new Set<string>(expandNamespacePolicy('write'));
    for (const c of [
      'alloc-node-exec',
      'csi-register-plugin',
      'sentinel-override',
      'host-volume-register',
      'host-volume-write',
      'host-volume-delete',
      'register-job',
      'purge-job',
    ]) {
      assert.equal(write.has(c), false, c);
    }
  });

  it('only ever yields known capabilities', () => {
    const known = new Set<string>(NAMESPACE_CAPABILITIES);
    for (const level of ['deny', 'read', 'write', 'scale'] as const) {
      for (const c of expandNamespacePolicy(level)) assert.ok(known.has(c), c);
    }
  });
});

describe('implied and other expansions', () => {
  it('implies the host-volume chain', () => {
    assert.deepEqual(impliedNamespaceCapabilities(['host-volume-write']), [
      'host-volume-register',
      'host-volume-create',
      'host-volume-delete',
      'host-volume-read',
    ]);
    assert.deepEqual(impliedNamespaceCapabilities(['host-volume-register']), ['host-volume-create', 'host-volume-read']);
    assert.deepEqual(impliedNamespaceCapabilities(['host-volume-create']), ['host-volume-read']);
    assert.deepEqual(impliedNamespaceCapabilities(['read-job', 'submit-job']), []);
  });

  it('expands host volume levels', () => {
    assert.deepEqual(expandHostVolumePolicy('deny'), ['deny']);
    assert.deepEqual(expandHostVolumePolicy('read'), ['mount-readonly']);
    assert.deepEqual(expandHostVolumePolicy('write'), ['mount-readonly', 'mount-readwrite']);
    assert.deepEqual(expandHostVolumePolicy('scale'), []);
  });

  it('adds list to read and lets deny stand alone in variable paths', () => {
    assert.deepEqual(expandVariableCapabilities(['read']), ['read', 'list']);
    assert.deepEqual(expandVariableCapabilities(['list', 'read']), ['list', 'read']);
    assert.deepEqual(expandVariableCapabilities(['write', 'deny', 'read']), ['deny']);
    assert.deepEqual(expandVariableCapabilities(['write']), ['write']);
  });
});
