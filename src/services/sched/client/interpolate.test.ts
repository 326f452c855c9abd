import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpolate, interpolateConfig } from './interpolate.js';

const vars = { attributes: { 'kernel.name': 'linux' }, meta: { rack: 'r1' }, node: { 'unique.name': 'n1', datacenter: 'dc1' } };
const env = { CAIRN_PORT_http: '24001', CAIRN_ADDR_http: '127.0.0.1:24001' };

describe('task interpolation', () => {
  it('replaces environment variables, node attributes, metadata and node fields; leaves unknown ones as written', () => {
    assert.equal(interpolate('--port=${CAIRN_PORT_http}', env, vars), '--port=24001');
    assert.equal(interpolate('${attr.kernel.name}/${meta.rack}/${node.unique.name}/${node.datacenter}', env, vars), 'linux/r1/n1/dc1');
    assert.equal(interpolate('${NOPE} ${meta.none} ${attr.toString} $CAIRN_PORT_http', env, vars), '${NOPE} ${meta.none} ${attr.toString} $CAIRN_PORT_http');
  });

  it('interpolates every string of a driver config, nested, keeping keys and other values', () => {
    const config = { command: '/bin/sh', args: ['-c', 'serve ${CAIRN_ADDR_http}'], nested: { '${meta.rack}': ['${meta.rack}', 3, true, null] } };
    assert.deepEqual(interpolateConfig(config, env, vars), {
      command: '/bin/sh',
      args: ['-c', 'serve 127.0.0.1:24001'],
      nested: { '${meta.rack}': ['r1', 3, true, null] },
    });
  });
});
