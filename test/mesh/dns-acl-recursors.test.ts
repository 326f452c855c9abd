/**
 * The DNS server's ACL filtering and recursion (issue 16 scope 7): answers are what the
 * agent's default token may read (`service:read` and `node:read`; a token that does not
 * exist gives SERVFAIL), and with `recursors` names outside the domain are forwarded to an
 * upstream (a small dns-packet server on loopback) past one that never answers, with its
 * NOERROR / NXDOMAIN passed back and SERVFAIL when no recursor answers usefully. The
 * recursing agent also uses another `domain` and `only_passing`.
 */
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { decode, encode } from 'dns-packet';
import { defaultDnsConfig } from '../../src/services/mesh/config.js';
import { dig, type DigRecord } from './dig.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d';
const DEFAULT_TOKEN = 'c0ffee00-1111-4222-8333-444455556666';

const data = (records: readonly DigRecord[]): string[] =>
  records
    .filter((r) => r.type === 'A')
    .map((r) => r.data)
    .sort();
const portOf = (a: TestAgent): number => Number(a.dnsAddress!.split(':').pop());

/** Registers `service` on `node` at `address` with one check in `status` (default passing), as `ROOT` on `a`. */
async function register(
  a: TestAgent,
  { node, address, service, status = 'passing' }: { node: string; address: string; service: { ID: string; Service: string; Port: number }; status?: string },
): Promise<void> {
  const r = await call(a.url, 'PUT', '/v1/catalog/register', {
    token: ROOT,
    body: {
      Node: node,
      Address: address,
      Service: service,
      Check: { Node: node, CheckID: `service:${service.ID}`, Name: 'h', Status: status, ServiceID: service.ID },
    },
  });
  assert.equal(r.status, 200, r.text);
}

describe('discovery DNS: answers filtered by the default token', () => {
  let a: TestAgent;
  const put = (path: string, body: unknown) => call(a.url, 'PUT', path, { token: ROOT, body });

  before(async () => {
    a = await startAgent({ initialManagement: ROOT, defaultToken: DEFAULT_TOKEN }, { dns: defaultDnsConfig('127.0.0.1:0') });
    await register(a, { node: 'n1', address: '10.0.0.1', service: { ID: 'web1', Service: 'web', Port: 80 } });
    await register(a, { node: 'n1', address: '10.0.0.1', service: { ID: 'secret1', Service: 'secret', Port: 81 } });
  });
  after(() => a.stop());

  it('no such token: SERVFAIL; service read without node read: NXDOMAIN; with both: only the readable service', async () => {
    assert.equal((await dig(portOf(a), 'web.service.cairn')).status, 'SERVFAIL', 'the default token does not exist yet');

    const policy = await put('/v1/acl/policy', { Name: 'dns', Rules: 'service "web" { policy = "read" }' });
    assert.equal(policy.status, 200);
    assert.equal((await put('/v1/acl/token', { SecretID: DEFAULT_TOKEN, Policies: [{ Name: 'dns' }] })).status, 200);
    for (const name of ['web.service.cairn', 'secret.service.cairn', 'n1.node.cairn']) {
      const r = await dig(portOf(a), name);
      assert.deepEqual([r.status, r.answer.length], ['NXDOMAIN', 0], `${name} without node:read`);
    }

    const rules = 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }';
    assert.equal((await put(`/v1/acl/policy/${policy.json.ID}`, { Name: 'dns', Rules: rules })).status, 200);
    assert.deepEqual(data((await dig(portOf(a), 'web.service.cairn')).answer), ['10.0.0.1']);
    assert.deepEqual(data((await dig(portOf(a), 'n1.node.cairn')).answer), ['10.0.0.1']);
    const hidden = await dig(portOf(a), 'secret.service.cairn');
    assert.deepEqual([hidden.status, hidden.answer.length], ['NXDOMAIN', 0], 'no service:read on "secret"');
  });
});

describe('discovery DNS: recursors, another domain, only_passing', () => {
  let a: TestAgent;
  let upstream: Socket;
  let silent: Socket;
  const asked: string[] = [];

  before(async () => {
    // The upstream: example.test → 192.0.2.7, fail.test → SERVFAIL, anything else → NXDOMAIN.
    upstream = createSocket('udp4');
    upstream.on('message', (msg, from) => {
      const q = decode(msg);
      const name = q.questions![0]!.name;
      asked.push(name);
      const rcode = name === 'example.test' ? 0 : name === 'fail.test' ? 2 : 3;
      const answers = rcode === 0 ? [{ type: 'A' as const, name, ttl: 60, data: '192.0.2.7' }] : [];
      upstream.send(encode({ type: 'response', id: q.id, flags: 0x0180 | rcode, questions: q.questions, answers }), from.port, from.address);
    });
    // A recursor that never answers: asked first, it must time out.
    silent = createSocket('udp4');
    await Promise.all([upstream, silent].map((s) => new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve))));
    const dns = {
      ...defaultDnsConfig('127.0.0.1:0'),
      domain: 'consul',
      onlyPassing: true,
      recursorTimeoutMs: 300,
      recursors: [`127.0.0.1:${silent.address().port}`, `127.0.0.1:${upstream.address().port}`],
    };
    a = await startAgent({ initialManagement: ROOT, enabled: false }, { dns });
    await register(a, { node: 'n1', address: '10.0.0.1', service: { ID: 'web1', Service: 'web', Port: 80 }, status: 'passing' });
    await register(a, { node: 'n2', address: '10.0.0.2', service: { ID: 'web2', Service: 'web', Port: 80 }, status: 'warning' });
  });
  after(async () => {
    await a.stop();
    upstream.close();
    silent.close();
  });

  it('forwards names outside the domain past a silent recursor; NXDOMAIN passes through, no useful answer is SERVFAIL', async () => {
    const ok = await dig(portOf(a), 'example.test');
    assert.equal(ok.status, 'NOERROR', ok.text);
    assert.deepEqual(data(ok.answer), ['192.0.2.7']);
    assert.ok(ok.flags.includes('ra'), 'recursion available');
    assert.equal((await dig(portOf(a), 'nothere.test')).status, 'NXDOMAIN');
    assert.equal((await dig(portOf(a), 'fail.test')).status, 'SERVFAIL');
    assert.equal((await dig(portOf(a), 'web.service.cairn')).status, 'NXDOMAIN', 'the default domain is another name here: the upstream said NXDOMAIN');
    assert.ok(asked.includes('web.service.cairn'));
  });

  it('answers its own domain itself, with only the passing instances', async () => {
    const before = asked.length;
    const r = await dig(portOf(a), 'web.service.consul');
    assert.equal(r.status, 'NOERROR', r.text);
    assert.deepEqual(data(r.answer), ['10.0.0.1'], 'the warning instance is left out with only_passing');
    assert.ok(r.flags.includes('ra') && r.flags.includes('aa'));
    assert.equal(asked.length, before, 'not forwarded');
  });
});
