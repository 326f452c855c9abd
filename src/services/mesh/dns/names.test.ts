/**
 * DNS question names parsed as the reference reads them (names.ts): the service, tag, node
 * and addr forms with and without a datacenter, any case, and what is outside the domain.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addrLabel, parseName } from './names.js';

const parse = (name: string) => parseName(name, 'cairn', 'dc1');

describe('DNS question names', () => {
  it('service lookups: plain, tagged (dots allowed), RFC 2782, with a datacenter, any case', () => {
    assert.deepEqual(parse('web.service.cairn.'), { kind: 'service', service: 'web', tag: undefined, datacenter: 'dc1' });
    assert.deepEqual(parse('V1.Web.SERVICE.DC2.cairn'), { kind: 'service', service: 'web', tag: 'v1', datacenter: 'dc2' });
    assert.deepEqual(parse('a.b.web.service.cairn'), { kind: 'service', service: 'web', tag: 'a.b', datacenter: 'dc1' });
    assert.deepEqual(parse('_web._primary.service.cairn'), { kind: 'service', service: 'web', tag: 'primary', datacenter: 'dc1' });
    assert.deepEqual(parse('_web._tcp.service.dc1.cairn'), { kind: 'service', service: 'web', tag: undefined, datacenter: 'dc1' });
  });

  it('node and addr lookups', () => {
    assert.deepEqual(parse('n1.node.cairn'), { kind: 'node', node: 'n1', datacenter: 'dc1' });
    assert.deepEqual(parse('n1.node.dc1.cairn'), { kind: 'node', node: 'n1', datacenter: 'dc1' });
    assert.deepEqual(parse('0a000001.addr.dc1.cairn'), { kind: 'addr', address: '10.0.0.1', datacenter: 'dc1' });
    assert.equal(addrLabel('10.9.9.4', 4), '0a090904');
    assert.equal(addrLabel('2001:db8::6', 6), '20010db8000000000000000000000006');
    const six = parse(`${addrLabel('2001:db8::6', 6)}.addr.cairn`);
    assert.deepEqual(six, { kind: 'addr', address: '2001:0db8:0000:0000:0000:0000:0000:0006', datacenter: 'dc1' });
  });

  it('the zone, unknown forms under it, and names outside it', () => {
    assert.deepEqual(parse('cairn.'), { kind: 'zone', apex: true });
    for (const name of ['service.cairn', 'what.cairn', 'x.y.cairn', 'zz.addr.cairn', '..service.cairn'])
      assert.deepEqual(parse(name), { kind: 'zone', apex: false }, name);
    for (const name of ['example.com', 'cairn.example.com', 'xcairn', 'web.service.consul']) assert.deepEqual(parse(name), { kind: 'outside' }, name);
  });
});
