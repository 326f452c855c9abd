import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, it } from 'node:test';
import { networkFingerprint } from './network-fingerprint.js';

const v4 = (address: string, internal = false): NetworkInterfaceInfo => ({
  address,
  netmask: '255.255.255.0',
  family: 'IPv4',
  mac: '00:00:00:00:00:00',
  internal,
  cidr: `${address}/24`,
});

const IFACES = { lo: [v4('127.0.0.1', true)], eth0: [v4('192.168.5.10')], eth1: [v4('10.20.0.7')] };

describe('client network fingerprint', () => {
  it('reports the configured interface as the default network, the host networks by cidr and interface, the range and reserved ports', () => {
    const fp = networkFingerprint(
      {
        minDynamicPort: 25000,
        maxDynamicPort: 26000,
        reservedPorts: '22',
        networkInterface: 'lo',
        hostNetworks: [
          { name: 'private', cidr: '10.0.0.0/8' },
          { name: 'lan', interface: 'eth0' },
          { name: 'dmz', cidr: '172.16.0.0/12' },
        ],
      },
      IFACES,
    );
    assert.deepEqual(fp.resources.Networks, [{ Mode: 'host', Device: 'lo', CIDR: '127.0.0.1/32', IP: '127.0.0.1', MBits: 1000 }]);
    const aliases = fp.resources.NodeNetworks.flatMap((n) => n.Addresses.map((a) => [n.Device, a.Alias, a.Address]));
    // `dmz` matches no address: not reported, so ports asking for it are placed elsewhere.
    assert.deepEqual(aliases, [
      ['lo', 'default', '127.0.0.1'],
      ['eth1', 'private', '10.20.0.7'],
      ['eth0', 'lan', '192.168.5.10'],
    ]);
    assert.deepEqual([fp.resources.MinDynamicPort, fp.resources.MaxDynamicPort], [25000, 26000]);
    assert.deepEqual(fp.reserved, { Networks: { ReservedHostPorts: '22' } });
  });

  it('defaults to the reference range and, without a setting or a default route, the first non-loopback address', () => {
    const fp = networkFingerprint(undefined, { lo: [v4('127.0.0.1', true)], eth1: [v4('10.20.0.7')] });
    assert.deepEqual([fp.resources.MinDynamicPort, fp.resources.MaxDynamicPort], [20000, 32000]);
    // This host's default route names its own interface, absent from the given ones: the first non-loopback address is used.
    assert.equal(fp.resources.Networks[0]!.IP, '10.20.0.7');
    assert.equal(networkFingerprint(undefined, { lo: [v4('127.0.0.1', true)] }).resources.Networks[0]!.IP, '127.0.0.1');
  });
});
