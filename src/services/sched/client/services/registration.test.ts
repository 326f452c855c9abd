import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Service, ServiceCheck } from '../../jobs/services.js';
import { buildRegistration, type RegistrationContext } from './registration.js';

const ctx: RegistrationContext = {
  allocId: 'a1',
  alloc: { AllocatedResources: { Shared: { Ports: [{ Label: 'http', Value: 24001, To: 0, HostIP: '10.0.0.5' }] } } },
  jobName: 'shop',
  group: 'web',
  nodeId: 'n-1',
  nodeAddress: '10.0.0.5',
  deregisterAfter: '1m',
  node: { attributes: { 'kernel.name': 'linux' }, meta: { rack: 'r1', tier: 'gold' }, node: { 'unique.name': 'node-a', datacenter: 'dc1', class: 'edge' } },
};

const check: ServiceCheck = {
  Name: 'http on ${node.unique.name}',
  Type: 'http',
  Command: '',
  Args: null,
  Path: '/health/${meta.rack}',
  Protocol: '',
  PortLabel: '',
  AddressMode: '',
  Interval: 1e9,
  Timeout: 1e9,
  InitialStatus: '',
  Method: '',
  Header: { 'X-Rack': ['${meta.rack}', '${node.datacenter}'] },
  Body: '${attr.kernel.name}',
  TLSSkipVerify: false,
  SuccessBeforePassing: 0,
  FailuresBeforeCritical: 0,
  TaskName: '',
  OnUpdate: '',
  CheckRestart: null,
};

const service: Service = {
  Name: '${JOB}-${meta.rack}-${node.class}',
  PortLabel: 'http',
  Tags: ['${node.datacenter}', 'kernel-${attr.kernel.name}', '${meta.nope}'],
  CanaryTags: null,
  EnableTagOverride: false,
  AddressMode: 'auto',
  Address: '',
  Meta: { tier: '${meta.tier}', alloc: '${CAIRN_ALLOC_ID}' },
  Checks: [check],
  CheckRestart: null,
  TaskName: '',
  OnUpdate: '',
  Provider: 'consul',
};

describe('service registrations: interpolation of service and check fields', () => {
  it("resolves the node's ${node.*}, ${attr.*}, ${meta.*} and the task's environment in the name, tags, meta and the check's name, path, header and body", () => {
    const reg = buildRegistration(ctx, service, { task: 'server', env: { CAIRN_ALLOC_ID: 'a1' }, scriptTask: 'server' });
    assert.equal(reg.id, '_cairn-task-a1-server-shop-r1-edge-http');
    assert.equal(reg.body.Name, 'shop-r1-edge');
    assert.deepEqual(reg.body.Tags, ['dc1', 'kernel-linux', '${meta.nope}'], 'an unknown name stays as written');
    assert.deepEqual(reg.body.Meta, { tier: 'gold', alloc: 'a1', 'external-source': 'cairn', 'cairn-alloc-id': 'a1', 'cairn-node-id': 'n-1' });
    assert.equal(reg.body.Address, '10.0.0.5');
    assert.equal(reg.body.Port, 24001);
    const [http] = reg.body.Checks ?? [];
    assert.equal(http?.Name, 'http on node-a');
    assert.equal(http?.HTTP, 'http://10.0.0.5:24001/health/r1');
    assert.deepEqual(http?.Header, { 'X-Rack': ['r1', 'dc1'] });
    assert.equal(http?.Body, 'linux');
  });

  it('a name invalid once the node variables are resolved is refused with the resolved name', () => {
    const bad = { ...service, Name: '${meta.rack}_${node.unique.name}' };
    assert.throws(() => buildRegistration(ctx, bad, { task: 'server', env: {}, scriptTask: 'server' }), /RFC 1123.*"r1_node-a"/);
  });
});

describe('service registrations of a canary allocation', () => {
  const canaryService: Service = { ...service, CanaryTags: ['canary-${meta.rack}'], CanaryMeta: { version: '${meta.tier}-next' } };
  const base = { 'external-source': 'cairn', 'cairn-alloc-id': 'a1', 'cairn-node-id': 'n-1' };

  it('a canary registers the canary tags and meta (interpolated); promoted, the normal ones under the same ID', () => {
    const canary = buildRegistration({ ...ctx, canary: true }, canaryService, { task: 'server', env: {}, scriptTask: 'server' });
    assert.deepEqual(canary.body.Tags, ['canary-r1']);
    assert.deepEqual(canary.body.Meta, { version: 'gold-next', ...base });
    const promoted = buildRegistration({ ...ctx, canary: false }, canaryService, { task: 'server', env: {}, scriptTask: 'server' });
    assert.equal(promoted.id, canary.id);
    assert.deepEqual(promoted.body.Tags, ['dc1', 'kernel-linux', '${meta.nope}']);
    assert.deepEqual(promoted.body.Meta, { tier: 'gold', alloc: '${CAIRN_ALLOC_ID}', ...base });
  });

  it('a canary of a service without canary tags or meta registers its normal ones (the reference: empty means the same)', () => {
    const reg = buildRegistration(
      { ...ctx, canary: true },
      { ...service, CanaryTags: null, CanaryMeta: null },
      { task: 'server', env: {}, scriptTask: 'server' },
    );
    assert.deepEqual(reg.body.Tags, ['dc1', 'kernel-linux', '${meta.nope}']);
    assert.deepEqual(reg.body.Meta, { tier: 'gold', alloc: '${CAIRN_ALLOC_ID}', ...base });
  });
});
