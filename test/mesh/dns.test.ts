/**
 * The agent's DNS server asked with `dig` (issue 16 scope 7; reference/mesh-catalog.md
 * "DNS"): A and SRV answers of the healthy instances (critical ones leave when their check
 * flips), tags in both forms, `.addr.` targets, node lookups, NXDOMAIN and no-data replies
 * with the SOA, case-insensitive names, TTLs from `dns_config`, TCP, truncation of a UDP
 * reply over 512 bytes (whole over TCP), REFUSED outside the domain without recursors, and
 * malformed packets over UDP and TCP that leave the server answering.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { encode } from 'dns-packet';
import { defaultDnsConfig } from '../../src/services/mesh/config.js';
import { dig, type DigRecord } from './dig.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '0b6a7c1e-3d4f-4a5b-8c9d-0e1f2a3b4c5d';
const DNS_TOKEN = '7f3e2d1c-0b9a-4877-a665-544332211000';

/** The data of the records of `type` among `records`, sorted. */
const data = (records: readonly DigRecord[], type = 'A'): string[] =>
  records
    .filter((r) => r.type === type)
    .map((r) => r.data)
    .sort();

describe('discovery DNS server', () => {
  let a: TestAgent;
  let port: number;
  const put = (path: string, body: unknown) => call(a.url, 'PUT', path, { token: ROOT, body });
  /** Registers `service` instance `id` on node `node` (address `address`) with one check in `status`. */
  const register = async (node: string, address: string, service: Record<string, unknown>, status: string) => {
    const r = await put('/v1/catalog/register', {
      Node: node,
      Address: address,
      Service: service,
      Check: { Node: node, CheckID: `service:${service.ID}`, Name: 'health', Status: status, ServiceID: service.ID },
    });
    assert.equal(r.status, 200, r.text);
  };

  before(async () => {
    a = await startAgent(
      { initialManagement: ROOT, dnsToken: DNS_TOKEN },
      { dns: { ...defaultDnsConfig('127.0.0.1:0'), serviceTtl: { web: 30, 'bi*': 7 }, nodeTtl: 10 } },
    );
    port = Number(a.dnsAddress!.split(':').pop());
    assert.equal(
      (await put('/v1/acl/policy', { Name: 'dns', Rules: 'service_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }' })).status,
      200,
    );
    assert.equal((await put('/v1/acl/token', { SecretID: DNS_TOKEN, Policies: [{ Name: 'dns' }] })).status, 200);
    await register('n1', '10.0.0.1', { ID: 'web1', Service: 'web', Tags: ['primary'], Port: 8001 }, 'passing');
    await register('n2', '10.0.0.2', { ID: 'web2', Service: 'web', Tags: ['v2'], Port: 8002 }, 'warning');
    await register('n3', '10.0.0.3', { ID: 'web3', Service: 'web', Port: 8003 }, 'critical');
    await register('n4', '10.0.0.4', { ID: 'web4', Service: 'web', Address: '10.9.9.4', Port: 8004, Weights: { Passing: 5, Warning: 1 } }, 'passing');
    await register('n5', '10.0.0.5', { ID: 'down1', Service: 'down', Port: 9000 }, 'critical');
  });
  after(() => a.stop());

  it('A and SRV answer the passing and warning instances; a check flipping to critical takes its instance out', async () => {
    const byA = await dig(port, 'web.service.cairn');
    assert.equal(byA.status, 'NOERROR', byA.text);
    assert.ok(byA.flags.includes('aa'), 'authoritative');
    assert.deepEqual(data(byA.answer), ['10.0.0.1', '10.0.0.2', '10.9.9.4'], 'service address first, else the node address; critical n3 left out');
    assert.ok(
      byA.answer.every((r) => r.name === 'web.service.cairn.' && r.ttl === 30),
      'service_ttl',
    );

    const bySrv = await dig(port, 'web.service.cairn', 'SRV');
    assert.deepEqual(data(bySrv.answer, 'SRV'), ['1 1 8001 n1.node.dc1.cairn.', '1 1 8002 n2.node.dc1.cairn.', '1 5 8004 0a090904.addr.dc1.cairn.']);
    assert.deepEqual(
      bySrv.additional
        .filter((r) => r.type === 'A')
        .map((r) => `${r.name} ${r.data}`)
        .sort(),
      ['0a090904.addr.dc1.cairn. 10.9.9.4', 'n1.node.dc1.cairn. 10.0.0.1', 'n2.node.dc1.cairn. 10.0.0.2'],
    );
    assert.deepEqual(data((await dig(port, '0a090904.addr.dc1.cairn')).answer), ['10.9.9.4'], 'the .addr. target resolves');

    await register('n1', '10.0.0.1', { ID: 'web1', Service: 'web', Tags: ['primary'], Port: 8001 }, 'critical');
    assert.deepEqual(data((await dig(port, 'web.service.cairn')).answer), ['10.0.0.2', '10.9.9.4']);
    await register('n1', '10.0.0.1', { ID: 'web1', Service: 'web', Tags: ['primary'], Port: 8001 }, 'passing');
    assert.deepEqual(data((await dig(port, 'web.service.cairn')).answer), ['10.0.0.1', '10.0.0.2', '10.9.9.4']);

    const down = await dig(port, 'down.service.cairn');
    assert.equal(down.status, 'NXDOMAIN', 'no healthy instance: the name does not exist');
    assert.deepEqual(down.answer, []);
  });

  it('tags: <tag>.<service>.service and the RFC 2782 form', async () => {
    assert.deepEqual(data((await dig(port, 'primary.web.service.cairn')).answer), ['10.0.0.1']);
    assert.deepEqual(data((await dig(port, '_web._v2.service.cairn', 'SRV')).answer, 'SRV'), ['1 1 8002 n2.node.dc1.cairn.']);
    assert.equal(data((await dig(port, '_web._tcp.service.dc1.cairn', 'SRV')).answer, 'SRV').length, 3, '_tcp means no tag');
    assert.equal((await dig(port, 'nosuchtag.web.service.cairn')).status, 'NXDOMAIN');
  });

  it('node lookups; NXDOMAIN and no-data replies carry the SOA; names are case-insensitive', async () => {
    for (const name of ['n1.node.cairn', 'n1.node.dc1.cairn', 'N1.Node.CAIRN.']) {
      const r = await dig(port, name);
      assert.equal(r.status, 'NOERROR', r.text);
      assert.deepEqual(
        r.answer.map((x) => [x.type, x.data, x.ttl]),
        [['A', '10.0.0.1', 10]],
        name,
      );
    }
    assert.deepEqual(data((await dig(port, 'WEB.Service.Cairn')).answer), ['10.0.0.1', '10.0.0.2', '10.9.9.4']);

    for (const name of ['nope.node.cairn', 'nope.service.cairn', 'web.service.dc2.cairn', 'what.cairn']) {
      const r = await dig(port, name);
      assert.equal(r.status, 'NXDOMAIN', name);
      assert.equal(r.authority.length, 1, name);
      const soa = r.authority[0]!;
      assert.deepEqual([soa.name, soa.type, soa.ttl], ['cairn.', 'SOA', 0]);
      assert.match(soa.data, /^ns\.cairn\. hostmaster\.cairn\. \d+ 3600 600 86400 0$/);
    }
    const noData = await dig(port, 'web.service.cairn', 'TXT');
    assert.deepEqual([noData.status, noData.answer.length, noData.authority[0]?.type], ['NOERROR', 0, 'SOA']);
    const soa = await dig(port, 'cairn', 'SOA');
    assert.deepEqual([soa.status, soa.answer[0]?.type], ['NOERROR', 'SOA']);
  });

  it('over TCP; a UDP reply over 512 bytes is truncated (TC) and whole over TCP or with EDNS', async () => {
    assert.deepEqual(data((await dig(port, 'web.service.cairn', 'A', ['+tcp'])).answer), ['10.0.0.1', '10.0.0.2', '10.9.9.4']);
    for (let i = 0; i < 40; i++) await register(`b${i}`, `10.1.0.${i + 1}`, { ID: `big${i}`, Service: 'big', Port: 7000 }, 'passing');

    const udp = await dig(port, 'big.service.cairn', 'A', ['+noedns', '+ignore']);
    assert.equal(udp.status, 'NOERROR', udp.text);
    assert.ok(udp.flags.includes('tc'), `TC set: ${udp.flags.join(' ')}`);
    assert.ok(udp.answer.length > 0 && udp.answer.length < 40, `as many answers as fit: ${udp.answer.length}`);

    const tcp = await dig(port, 'big.service.cairn', 'A', ['+tcp']);
    assert.equal(tcp.answer.length, 40);
    assert.ok(!tcp.flags.includes('tc'));
    assert.ok(
      tcp.answer.every((r) => r.ttl === 7),
      'a service_ttl prefix entry',
    );
    const retried = await dig(port, 'big.service.cairn', 'A', ['+noedns']);
    assert.equal(retried.answer.length, 40, 'dig retries over TCP on TC');
  });

  it('a name outside the domain without recursors: REFUSED, no RA', async () => {
    const r = await dig(port, 'example.com');
    assert.equal(r.status, 'REFUSED');
    assert.ok(!r.flags.includes('ra'));
  });

  it('malformed packets over UDP and TCP get FORMERR or nothing, and the server keeps answering', async () => {
    const udp = createSocket('udp4');
    const replies: Buffer[] = [];
    udp.on('message', (m) => replies.push(m));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const send = (b: Buffer) => new Promise<void>((resolve) => udp.send(b, port, '127.0.0.1', () => resolve()));
    const next = async (count: number): Promise<Buffer> => {
      for (let i = 0; i < 200 && replies.length < count; i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(replies.length >= count, `reply ${count} came`);
      return replies[count - 1]!;
    };
    // Random bytes: short ones, long ones, ones claiming 65535 records of every section.
    for (let i = 0; i < 50; i++) await send(Buffer.from(Array.from({ length: 1 + Math.floor(Math.random() * 600) }, () => Math.floor(Math.random() * 256))));
    await send(Buffer.from([0x12, 0x34, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x61]));
    // A valid query after them: once its reply is in, every earlier one is too.
    await send(encode({ type: 'query', id: 0x4242, questions: [{ type: 'A', name: 'web.service.cairn' }] }));
    for (let i = 0; i < 200 && !replies.some((r) => r.readUInt16BE(0) === 0x4242); i++) await new Promise((r) => setTimeout(r, 10));
    const before = replies.length;
    assert.equal(replies[before - 1]!.readUInt16BE(0), 0x4242, 'the valid query after the garbage is answered');
    await send(Buffer.from([0xab, 0xcd, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1]));
    const formerr = await next(before + 1);
    assert.deepEqual([formerr.readUInt16BE(0), formerr.readUInt16BE(2) & 0x800f], [0xabcd, 0x8001], 'FORMERR with the query id (a name pointing at itself)');
    await send(
      encode({
        type: 'query',
        id: 7,
        questions: [
          { type: 'A', name: 'web.service.cairn' },
          { type: 'A', name: 'web.service.cairn' },
        ],
      }),
    );
    assert.equal((await next(before + 2)).readUInt16BE(2) & 0xf, 1, 'two questions: FORMERR');
    const status = encode({ type: 'query', id: 8, questions: [{ type: 'A', name: 'web.service.cairn' }] });
    status[2] = 0x10; // opcode 2 (STATUS)
    await send(status);
    assert.equal((await next(before + 3)).readUInt16BE(2) & 0xf, 4, 'another opcode: NOTIMP');
    udp.close();

    // TCP: a length prefix promising more than comes, then garbage in a frame of its own.
    const hanging = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => hanging.once('connect', () => resolve()));
    hanging.write(Buffer.from([0xff, 0xf0, 1, 2, 3]));
    const framed = connect(port, '127.0.0.1');
    const got = new Promise<Buffer>((resolve) => framed.once('data', resolve));
    framed.write(Buffer.from([0x00, 0x12, 0xab, 0xcd, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1]));
    const reply = await got;
    assert.deepEqual([reply.readUInt16BE(0), reply.readUInt16BE(2), reply.readUInt16BE(4) & 0x800f], [12, 0xabcd, 0x8001], 'a framed FORMERR');
    framed.destroy();

    assert.deepEqual(
      data((await dig(port, 'web.service.cairn', 'A', ['+tcp'])).answer),
      ['10.0.0.1', '10.0.0.2', '10.9.9.4'],
      'TCP still answers beside the hanging connection',
    );
    assert.deepEqual(data((await dig(port, 'web.service.cairn')).answer), ['10.0.0.1', '10.0.0.2', '10.9.9.4'], 'UDP still answers');
    hanging.destroy();
  });
});
