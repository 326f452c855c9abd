/**
 * Template sources, discovery catalog (issue 27 scope 5): `health.service` (passing by
 * default: an instance whose check goes critical leaves it; `any` keeps it with its status;
 * a tag narrows) and `catalog.services`, watched with blocking queries against a real
 * discovery agent (instances registered through its catalog API).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import type { HealthInstance } from '../../src/services/sched/template/dependency.js';
import { createTemplateSource } from '../../src/services/sched/client/templates/sources/index.js';
import { DEFAULT_TEMPLATE_SOURCE_SETTINGS } from '../../src/services/sched/client/templates/sources/settings.js';
import { call as meshCall, startAgent, type TestAgent } from '../mesh/helpers.js';
import { recorder } from './template-sources-helpers.js';

const ROOT = '6e1d8c2b-3a4f-4b6c-8d7e-8f9a0b1c2d3e';
const settings = { ...DEFAULT_TEMPLATE_SOURCE_SETTINGS, blockQueryWaitMs: 30_000, consulRetry: { backoffMs: 50, maxBackoffMs: 200 } };

describe('template sources: health.service and catalog.services', () => {
  let mesh: TestAgent;
  const register = async (node: string, id: string, port: number, o: { status: string; tags?: string[] }) => {
    const r = await meshCall(mesh.url, 'PUT', '/v1/catalog/register', {
      token: ROOT,
      body: {
        Node: node,
        Address: `10.0.0.${port % 250}`,
        Service: { ID: id, Service: 'db', Port: port, Tags: o.tags ?? [] },
        Check: { CheckID: `check-${id}`, Name: 'alive', Status: o.status, ServiceID: id },
      },
    });
    assert.equal(r.status, 200, r.text);
  };
  const summary = (v: unknown) => (v as HealthInstance[]).map((i) => `${i.Node}/${i.ID}:${i.Port}:${i.Status}`);

  before(async () => {
    mesh = await startAgent({ initialManagement: ROOT });
  });
  after(async () => {
    await mesh?.stop();
  });

  it('passing instances by default, all with their status for any; a check going critical takes the instance out', async () => {
    await register('n1', 'db-1', 5001, { status: 'passing', tags: ['primary'] });
    await register('n2', 'db-2', 5002, { status: 'passing' });
    const source = createTemplateSource({ discovery: { address: mesh.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const passing = recorder();
      const any = recorder();
      const tagged = recorder();
      source.watch({ kind: 'health.service', name: 'db', filter: ['passing'] }, passing);
      source.watch({ kind: 'health.service', name: 'db', filter: ['any'] }, any);
      source.watch({ kind: 'health.service', name: 'db', tag: 'primary', filter: ['passing'] }, tagged);
      await passing.valueWhere('both instances', (v) => summary(v).length === 2);
      assert.deepEqual(summary(passing.values.at(-1)), ['n1/db-1:5001:passing', 'n2/db-2:5002:passing']);
      const inst = (passing.values.at(-1) as HealthInstance[])[0]!;
      assert.equal(inst.Name, 'db');
      assert.equal(inst.NodeAddress, '10.0.0.1');
      assert.deepEqual(inst.Tags, ['primary']);
      await tagged.valueWhere('the tagged one', (v) => summary(v).join() === 'n1/db-1:5001:passing');

      await register('n2', 'db-2', 5002, { status: 'critical' });
      await passing.valueWhere('only the passing one', (v) => summary(v).join() === 'n1/db-1:5001:passing');
      await any.valueWhere('both, one critical', (v) => summary(v).join() === 'n1/db-1:5001:passing,n2/db-2:5002:critical');
      await register('n2', 'db-2', 5002, { status: 'passing' });
      await passing.valueWhere('both again', (v) => summary(v).length === 2);
      // The tagged watch's instance never changed: it was told once.
      assert.equal(tagged.values.length, 1);
      assert.equal(passing.errors.length + any.errors.length + tagged.errors.length, 0);
    } finally {
      source.close();
    }
  });

  it('catalog.services: the names and tags, again when a service comes', async () => {
    const source = createTemplateSource({ discovery: { address: mesh.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const r = recorder();
      source.watch({ kind: 'catalog.services' }, r);
      await r.valueWhere('db listed', (v) => Array.isArray((v as Record<string, unknown>).db));
      const reg = await meshCall(mesh.url, 'PUT', '/v1/catalog/register', {
        token: ROOT,
        body: { Node: 'n3', Address: '10.0.0.3', Service: { Service: 'web', Port: 80, Tags: ['v1'] } },
      });
      assert.equal(reg.status, 200);
      const v = (await r.valueWhere('web listed', (x) => Array.isArray((x as Record<string, unknown>).web))) as Record<string, string[]>;
      assert.deepEqual(v.web, ['v1']);
      assert.deepEqual([...v.db!].sort(), ['primary']);
    } finally {
      source.close();
    }
  });
});
