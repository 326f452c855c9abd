/**
 * `GET /v1/volumes` (spec 002 "Endpoints", reference/sched.md §1.7, §1.8, §4.8): stubs,
 * paging 1,050 volumes by 100 with `<namespace>.<id>` tokens while volumes are added between
 * pages, `filter` over the full volume with the reference's error texts, the even-hex rule of
 * `node_id` / `plugin_id`, `node_id` by claims, `namespace=*`, `type`, and a blocking query.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { T } from '../../src/services/sched/state.js';
import { allocWith, createVolume, startCsi, type CsiFixture } from './csi.js';

const pad = (i: number) => `vol-${String(i).padStart(4, '0')}`;

describe('scheduler CSI volume list', () => {
  let f: CsiFixture;
  /** IDs of a list reply. */
  const ids = (r: { json: { ID: string }[] }) => r.json.map((v) => v.ID);
  /** Copies of the stored volume `from` under new IDs, written straight into the state (fast setup). */
  const insert = async (from: string, newIds: readonly string[], ns = 'default') => {
    const doc = f.agent.state.get<Record<string, unknown>>(T.csiVolumes, `default.${from}`)!;
    await f.agent.state.txn((tx) => {
      for (const id of newIds) tx.put(T.csiVolumes, `${ns}.${id}`, { ...doc, ID: id, Name: id, Namespace: ns, Parameters: { n: id } });
    });
  };

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'ab12', capabilities: ['CREATE_DELETE_VOLUME'] }]);
    assert.equal((await f.req('PUT', '/v1/namespace/prod', { body: { Name: 'prod' } })).status, 200);
    for (let i = 0; i < 5; i++) await createVolume(f, pad(i), 'hostpath', { over: { Parameters: { tier: i < 2 ? 'gold' : 'silver' } } });
    await insert(
      pad(0),
      Array.from({ length: 1045 }, (_, i) => pad(i + 5)),
    );
  });
  after(async () => {
    await f?.stop();
  });

  it('answers [] without type and 400 for another type', async () => {
    const none = await f.req('GET', '/v1/volumes');
    assert.deepEqual([none.status, none.json], [200, []]);
    const host = await f.req('GET', '/v1/volumes?type=host');
    assert.deepEqual([host.status, host.text], [400, 'unsupported volume type "host": only "csi" is supported']);
  });

  it("lists stubs with the spec's fields", async () => {
    const r = await f.req('GET', '/v1/volumes?type=csi&prefix=vol-0001');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(ids(r), ['vol-0001']);
    assert.deepEqual(Object.keys(r.json[0]), [
      'ID',
      'ExternalID',
      'Namespace',
      'Name',
      'Topologies',
      'AccessMode',
      'AttachmentMode',
      'CurrentReaders',
      'CurrentWriters',
      'Schedulable',
      'PluginID',
      'Provider',
      'ControllerRequired',
      'ControllersHealthy',
      'ControllersExpected',
      'NodesHealthy',
      'NodesExpected',
      'ResourceExhausted',
      'CreateIndex',
      'ModifyIndex',
      'CreateTime',
      'ModifyTime',
    ]);
    assert.equal(r.headers.get('x-sched-nexttoken'), null);
    assert.ok(Number(r.headers.get('x-sched-index')) > 0);
  });

  it('pages 1,050 volumes by 100: each exactly once, stable while volumes are added', async () => {
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    for (;;) {
      const r = await f.req('GET', `/v1/volumes?type=csi&per_page=100${token ? `&next_token=${encodeURIComponent(token)}` : ''}`);
      assert.equal(r.status, 200, r.text);
      pages++;
      seen.push(...ids(r));
      token = r.headers.get('x-sched-nexttoken') ?? '';
      if (pages === 3) {
        // Added while paging: one before the cursor (never seen), one after it (seen at its place).
        assert.equal(token, 'default.vol-0300');
        await insert(pad(0), ['vol-0000a', 'vol-2000']);
        const made = await f.req('PUT', '/v1/volume/csi/vol-0999a/create', {
          body: {
            Volumes: [{ ID: 'vol-0999a', PluginID: 'hostpath', RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }] }],
          },
        });
        assert.equal(made.status, 200, made.text);
      }
      if (token === '') break;
      assert.ok(pages < 20, 'paging ends');
    }
    assert.equal(pages, 11);
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    for (let i = 0; i < 1050; i++) assert.ok(seen.includes(pad(i)), `${pad(i)} listed`);
    assert.ok(!seen.includes('vol-0000a') && seen.includes('vol-0999a') && seen.includes('vol-2000'));
    assert.deepEqual(seen, [...seen].sort(), 'in token order');

    const bad = await f.req('GET', '/v1/volumes?type=csi&per_page=ten');
    assert.deepEqual([bad.status, bad.text], [400, 'Expect a number for `per_page` query string parameter']);
    const negative = await f.req('GET', '/v1/volumes?type=csi&per_page=-1');
    assert.deepEqual([negative.status, negative.text], [400, 'per_page must not be negative']);
  });

  it("filters on the full volume, with paging and the reference's error texts", async () => {
    const gold = await f.req('GET', `/v1/volumes?type=csi&filter=${encodeURIComponent('Parameters.tier == "gold"')}`);
    assert.deepEqual(ids(gold), ['vol-0000', 'vol-0001']);
    const one = await f.req('GET', `/v1/volumes?type=csi&per_page=1&filter=${encodeURIComponent('Parameters.tier == "silver"')}`);
    assert.deepEqual([ids(one), one.headers.get('x-sched-nexttoken')], [['vol-0002'], 'default.vol-0003']);
    const rest = await f.req('GET', `/v1/volumes?type=csi&per_page=5&next_token=default.vol-0003&filter=${encodeURIComponent('Parameters.tier == "silver"')}`);
    assert.deepEqual([ids(rest), rest.headers.get('x-sched-nexttoken')], [['vol-0003', 'vol-0004'], null]);
    const regex = await f.req('GET', `/v1/volumes?type=csi&filter=${encodeURIComponent('Name matches "^vol-104[0-9]$" and Schedulable == true')}`);
    assert.equal(ids(regex).length, 10);
    const secret = await f.req('GET', `/v1/volumes?type=csi&filter=${encodeURIComponent('Secrets is not empty')}`);
    assert.deepEqual([secret.status, secret.json], [200, []], 'secrets are not filterable');

    const syntax = await f.req('GET', `/v1/volumes?type=csi&filter=${encodeURIComponent('ID ==')}`);
    assert.equal(syntax.status, 400);
    assert.match(syntax.text, /^failed to create result paginator: failed to read filter expression: 1:6: /);
    const field = await f.req('GET', `/v1/volumes?type=csi&filter=${encodeURIComponent('NoSuchField == 1')}`);
    assert.deepEqual(
      [field.status, field.text],
      [400, 'failed to read result page: error finding value in datum: /NoSuchField: at part 0, couldn\'t find key "NoSuchField"'],
    );
  });

  it('applies the even-hex rule to node_id and plugin_id, and narrows by them', async () => {
    const cases: [string, string][] = [
      ['plugin_id=abc', 'invalid plugin_id "abc": a prefix of hex characters must have an even length'],
      ['node_id=abc', 'invalid node_id "abc": a prefix of hex characters must have an even length'],
      ['node_id=ab-c', 'invalid node_id "ab-c": a prefix of hex characters must have an even length'],
      ['node_id=zz', 'invalid node_id "zz": must be hex characters of a node ID'],
    ];
    for (const [q, text] of cases) {
      const r = await f.req('GET', `/v1/volumes?type=csi&${q}`);
      assert.deepEqual([r.status, r.text], [400, text], q);
    }
    await createVolume(f, 'on-ab12', 'ab12');
    assert.deepEqual(ids(await f.req('GET', '/v1/volumes?type=csi&plugin_id=ab12')), ['on-ab12']);
    assert.deepEqual(ids(await f.req('GET', '/v1/volumes?type=csi&plugin_id=ab')), ['on-ab12']);
    assert.equal((await f.req('GET', '/v1/volumes?type=csi&plugin_id=host&per_page=1')).json[0].PluginID, 'hostpath', 'a plugin name prefix');

    assert.deepEqual(ids(await f.req('GET', `/v1/volumes?type=csi&node_id=${f.nodeId.slice(0, 8)}`)), []);
    await allocWith(f, { v: { Source: 'vol-0003' } });
    assert.deepEqual(ids(await f.req('GET', `/v1/volumes?type=csi&node_id=${f.nodeId.slice(0, 8).toUpperCase()}`)), ['vol-0003']);
    assert.deepEqual(ids(await f.req('GET', `/v1/volumes?type=csi&node_id=${f.nodeId}`)), ['vol-0003']);
    assert.deepEqual(ids(await f.req('GET', `/v1/volumes?type=csi&node_id=${f.nodeId.startsWith('00') ? '11' : '00'}`)), []);
  });

  it('lists every namespace with namespace=*, in namespace then ID order', async () => {
    await insert(pad(0), ['p-1', 'p-2'], 'prod');
    const prod = await f.req('GET', '/v1/volumes?type=csi&namespace=prod');
    assert.deepEqual(ids(prod), ['p-1', 'p-2']);
    const all = await f.req('GET', '/v1/volumes?type=csi&namespace=*&per_page=2&next_token=prod.');
    assert.deepEqual([ids(all), all.headers.get('x-sched-nexttoken')], [['p-1', 'p-2'], null]);
    const mixed = await f.req('GET', '/v1/volumes?type=csi&namespace=*&per_page=1&next_token=default.vol-2000');
    assert.deepEqual([ids(mixed), mixed.headers.get('x-sched-nexttoken')], [['vol-2000'], 'prod.p-1']);
  });

  it('blocks on the volume table until it changes', async () => {
    const first = await f.req('GET', '/v1/volumes?type=csi&prefix=late');
    const index = Number(first.headers.get('x-sched-index'));
    const started = Date.now();
    const waiting = f.req('GET', `/v1/volumes?type=csi&prefix=late&index=${index}&wait=10s`);
    setTimeout(() => void createVolume(f, 'late', 'hostpath'), 200);
    const r = await waiting;
    assert.ok(Date.now() - started >= 150, 'it waited');
    assert.deepEqual(ids(r), ['late']);
    assert.ok(Number(r.headers.get('x-sched-index')) > index);
  });
});
