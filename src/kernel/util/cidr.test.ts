// Unit tests of CIDR parsing, membership and containment (kernel/util/cidr.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressInCidrs, cidrsWithin, parseCidrList } from './cidr.js';

describe('parseCidrList', () => {
  it('takes a comma list or an array, gives bare addresses their full prefix', () => {
    assert.deepEqual(parseCidrList(' 10.0.0.0/8, 127.0.0.1 ,', 'f'), ['10.0.0.0/8', '127.0.0.1/32']);
    assert.deepEqual(parseCidrList(['::1', 'fd00::/8'], 'f'), ['::1/128', 'fd00::/8']);
    assert.deepEqual(parseCidrList(undefined, 'f'), []);
  });
  it('refuses what is not a block, naming the field and the item', () => {
    for (const bad of ['10.0.0.0/33', 'host.example', '10.0.0/8', '::1/129', '10.0.0.0/x'])
      assert.throws(() => parseCidrList(`127.0.0.1,${bad}`, 'cidr_list'), { message: `cidr_list: invalid CIDR block "${bad}"` });
  });
});

describe('addressInCidrs', () => {
  it('matches IPv4, IPv6 and IPv4-mapped IPv6 client addresses', () => {
    const cidrs = ['10.0.0.0/8', 'fd00::/8'];
    assert.equal(addressInCidrs('10.1.2.3', cidrs), true);
    assert.equal(addressInCidrs('::ffff:10.1.2.3', cidrs), true);
    assert.equal(addressInCidrs('fd12::1', cidrs), true);
    assert.equal(addressInCidrs('11.0.0.1', cidrs), false);
    assert.equal(addressInCidrs('', cidrs), false);
  });
});

describe('cidrsWithin', () => {
  it('needs each inner block inside some outer block; no outer blocks bound nothing', () => {
    assert.equal(cidrsWithin(['10.1.0.0/16', '192.168.1.1/32'], ['10.0.0.0/8', '192.168.0.0/16']), true);
    assert.equal(cidrsWithin(['10.0.0.0/7'], ['10.0.0.0/8']), false, 'wider');
    assert.equal(cidrsWithin(['11.0.0.0/16'], ['10.0.0.0/8']), false, 'elsewhere');
    assert.equal(cidrsWithin(['::1/128'], ['127.0.0.0/8']), false, 'other family');
    assert.equal(cidrsWithin(['1.2.3.4/32'], []), true);
  });
});
