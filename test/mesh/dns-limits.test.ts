/**
 * The DNS server's bounds on TCP connections (issue 16 scope 7): a connection that sends no
 * complete message is closed after the idle timeout, and past the agent's per-client cap
 * (`limits { http_max_conns_per_client }`) a new connection is closed at once; once the
 * idle ones are gone, TCP queries are answered again. Also IPv6 answers (AAAA, SRV with an
 * AAAA in the additional section).
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { defaultDnsConfig } from '../../src/services/mesh/config.js';
import { dig, digNoReply } from './dig.js';
import { call, startAgent, type TestAgent } from './helpers.js';

/** Opens a TCP connection to 127.0.0.1:`port`. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves once `s` is closed by the other end. */
const closed = (s: Socket): Promise<void> => new Promise((resolve) => (s.closed ? resolve() : s.once('close', () => resolve())));

describe('discovery DNS: TCP bounds and IPv6', () => {
  let a: TestAgent;
  let port: number;

  before(async () => {
    a = await startAgent(
      { enabled: false },
      { dns: defaultDnsConfig('127.0.0.1:0'), httpLimits: { maxConnectionsPerClient: 2 } },
      { dnsTcpIdleTimeoutMs: 3000 },
    );
    port = Number(a.dnsAddress!.split(':').pop());
    const r = await call(a.url, 'PUT', '/v1/catalog/register', {
      body: { Node: 'n6', Address: '2001:db8::6', Service: { ID: 'v6', Service: 'v6', Port: 443 } },
    });
    assert.equal(r.status, 200, r.text);
  });
  after(() => a.stop());

  it('idle connections are closed after the idle timeout; over the per-client cap a connection is closed at once', async () => {
    const idle = [await open(port), await open(port)];
    idle[0]!.on('error', () => undefined);
    idle[1]!.write(Buffer.from([0x01, 0x00, 0xab])); // a length prefix promising 256 bytes, then silence
    const third = await open(port);
    await closed(third);
    // No TCP answer while the client holds its 2 connections (dig itself must run and say so).
    assert.match(await digNoReply(port, 'v6.service.cairn', 'AAAA', ['+tcp']), /communications error|end of file|connection reset|no servers could be reached/);

    await Promise.all(idle.map(closed));
    const r = await dig(port, 'v6.service.cairn', 'AAAA', ['+tcp']);
    assert.deepEqual(
      r.answer.map((x) => [x.type, x.data]),
      [['AAAA', '2001:db8::6']],
      r.text,
    );
  });

  it('AAAA and SRV for an IPv6 node; an A question gets no data', async () => {
    const srv = await dig(port, 'v6.service.cairn', 'SRV');
    assert.deepEqual(
      srv.answer.map((x) => x.data),
      ['1 1 443 n6.node.dc1.cairn.'],
    );
    assert.deepEqual(
      srv.additional.filter((x) => x.type === 'AAAA').map((x) => `${x.name} ${x.data}`),
      ['n6.node.dc1.cairn. 2001:db8::6'],
    );
    const a4 = await dig(port, 'v6.service.cairn', 'A');
    assert.deepEqual([a4.status, a4.answer.length, a4.authority[0]?.type], ['NOERROR', 0, 'SOA']);
  });
});
