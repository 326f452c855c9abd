/**
 * The client agent's configuration: the reference's `client { … }` block and driver
 * `plugin "raw_exec" { config { enabled = true } }` blocks beside CSI plugin blocks; raw_exec
 * off unless enabled; errors name file, line and key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';

describe('scheduler client config', () => {
  it('reads the client block and the driver plugin blocks beside CSI plugins', () => {
    const c = parseSchedAgentConfig(
      `data_dir = "/tmp/s"
client {
  enabled    = true
  servers    = ["10.0.0.1:4646", "[::1]:4646"]
  node_class = "web"
  meta { rack = "r1" }
  cpu_total_compute = 4000
  token = "env://CLIENT_TOKEN"
}
plugin "raw_exec" {
  config { enabled = true }
}
plugin "hostpath" {
  socket = "/run/csi.sock"
  type   = "node"
}`,
      'a.hcl',
      { CLIENT_TOKEN: 'tok' },
    );
    assert.deepEqual(c.client, {
      servers: ['10.0.0.1:4646', '[::1]:4646'],
      stateDir: '/tmp/s/client',
      allocDir: '/tmp/s/alloc',
      nodeClass: 'web',
      nodePool: 'default',
      meta: { rack: 'r1' },
      cpuTotalCompute: 4000,
      token: 'tok',
      network: { minDynamicPort: 20000, maxDynamicPort: 32000, reservedPorts: '', hostNetworks: [] },
      drivers: { raw_exec: true, exec: true },
    });
    assert.deepEqual(c.plugins, [{ id: 'hostpath', socket: '/run/csi.sock', type: 'node' }]);
  });

  it('has no client unless enabled, and raw_exec off unless its plugin block enables it', () => {
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/s"', 'a.hcl').client, undefined);
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/s"\nclient { enabled = false }', 'a.hcl').client, undefined);
    const c = parseSchedAgentConfig('data_dir = "/tmp/s"\nclient { enabled = true }\nplugin "exec" {\n  config { enabled = false }\n}', 'a.hcl');
    assert.deepEqual(c.client?.drivers, { raw_exec: false, exec: false });
  });

  it('refuses bad values with file:line and the key', () => {
    const bad: [string, RegExp][] = [
      ['client {\n  enabled = true\n  servers = ["nowhere"]\n}', /^b\.hcl:4: "servers": "nowhere" is not host:port$/],
      ['client {\n  enabled = true\n  meta { n = 1 }\n}', /^b\.hcl:4: "meta": value of "n" must be a string$/],
      ['client {\n  enabled = true\n  token = "env://NO_SUCH"\n}', /^b\.hcl:4: "token": .*NO_SUCH/],
      ['client {\n  colour = "red"\n}', /^b\.hcl:3: unknown key "colour"/],
      [
        'client {\n  enabled = true\n  min_dynamic_port = 30000\n  max_dynamic_port = 29000\n}',
        /^b\.hcl:4: "min_dynamic_port" \(30000\) is above "max_dynamic_port" \(29000\)$/,
      ],
      ['client {\n  enabled = true\n  max_dynamic_port = 70000\n}', /^b\.hcl:4: .*max_dynamic_port/],
      [
        'client {\n  enabled = true\n  reserved {\n    reserved_ports = "22,80-x"\n  }\n}',
        /^b\.hcl:5: "reserved_ports": invalid port list "22,80-x": "80-x" is not a port or a range/,
      ],
      ['client {\n  enabled = true\n  reserved {\n    reserved_ports = "90-80"\n  }\n}', /^b\.hcl:5: "reserved_ports": .*low end is above its high end/],
      [
        'client {\n  enabled = true\n  host_network "p" {\n    cidr = "10.0.0.0/33"\n  }\n}',
        /^b\.hcl:5: host_network "p": cidr: invalid CIDR block "10\.0\.0\.0\/33"$/,
      ],
      ['client {\n  enabled = true\n  host_network "p" {}\n}', /^b\.hcl:4: host_network "p": give one of "cidr" and "interface"$/],
      ['plugin "hostpath" {\n  type = "node"\n}', /^b\.hcl:2: missing required key "socket" in plugin "hostpath"$/],
      ['plugin "hostpath" {\n  socket = "/s"\n}', /^b\.hcl:2: missing required key "type" in plugin "hostpath"$/],
    ];
    for (const [text, want] of bad) assert.throws(() => parseSchedAgentConfig(`data_dir = "/tmp/x"\n${text}`, 'b.hcl'), { message: want }, text);
  });

  it('reads the port settings: dynamic range, reserved ports, the default interface and host networks', () => {
    const c = parseSchedAgentConfig(
      'data_dir = "/tmp/s"\nclient {\n  enabled = true\n  min_dynamic_port = 25000\n  max_dynamic_port = 26000\n  network_interface = "lo"\n  reserved {\n    reserved_ports = "22, 25000-25010"\n  }\n  host_network "private" {\n    cidr = "10.0.0.0/8"\n  }\n  host_network "lan" {\n    interface = "eth1"\n  }\n}',
      'a.hcl',
    );
    assert.deepEqual(c.client?.network, {
      minDynamicPort: 25000,
      maxDynamicPort: 26000,
      reservedPorts: '22, 25000-25010',
      networkInterface: 'lo',
      hostNetworks: [
        { name: 'private', cidr: '10.0.0.0/8' },
        { name: 'lan', interface: 'eth1' },
      ],
    });
  });

  it('is client-only without a server block when the client lists servers, and reads the heartbeat keys', () => {
    const only = parseSchedAgentConfig('data_dir = "/tmp/s"\nclient {\n  enabled = true\n  servers = ["10.0.0.1:4646"]\n}', 'a.hcl');
    assert.equal(only.server, false);
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/s"\nclient { enabled = true }', 'a.hcl').server, true);
    assert.equal(parseSchedAgentConfig('data_dir = "/tmp/s"', 'a.hcl').server, true);
    const both = parseSchedAgentConfig(
      'data_dir = "/tmp/s"\nserver {\n  enabled = true\n  min_heartbeat_ttl = "2s"\n  heartbeat_grace = "1s"\n}\nclient {\n  enabled = true\n  servers = ["10.0.0.1:4646"]\n}',
      'a.hcl',
    );
    assert.equal(both.server, true);
    assert.equal(both.heartbeatTtlMs, 2000);
    assert.equal(both.heartbeatGraceMs, 1000);
    assert.throws(() => parseSchedAgentConfig('data_dir = "/tmp/s"\nserver { enabled = false }', 'c.hcl'), {
      message: /^c\.hcl:2: .*client-only agent \(server disabled\) needs client/,
    });
    assert.throws(() => parseSchedAgentConfig('data_dir = "/tmp/s"\nserver { enabled = false }\nclient { enabled = true }', 'c.hcl'), {
      message: /^c\.hcl:3: "servers": a client-only agent/,
    });
    assert.throws(
      () =>
        parseSchedAgentConfig(
          'data_dir = "/tmp/s"\nclient {\n  enabled = true\n  servers = ["10.0.0.1:4646"]\n}\nstorage "postgresql" {\n  connection_url = "postgres://x"\n}',
          'c.hcl',
        ),
      { message: /"storage": a client-only agent \(no server\) keeps no state/ },
    );
  });

  it('takes node and monolith CSI plugins on a client-only agent, not controllers nor node_id', () => {
    const client = 'data_dir = "/tmp/s"\nclient {\n  enabled = true\n  servers = ["10.0.0.1:4646"]\n}\n';
    const node = parseSchedAgentConfig(`${client}plugin "hp" {\n  type = "node"\n  socket = "/run/hp.sock"\n}`, 'a.hcl');
    assert.deepEqual(node.plugins, [{ id: 'hp', socket: '/run/hp.sock', type: 'node' }]);
    assert.throws(() => parseSchedAgentConfig(`${client}plugin "hp" {\n  type = "controller"\n  socket = "/run/hp.sock"\n}`, 'c.hcl'), {
      message: /"type": a client-only agent runs node plugins only .*controller "hp" on the servers/,
    });
    assert.throws(() => parseSchedAgentConfig(`${client}plugin "hp" {\n  type = "node"\n  socket = "/run/hp.sock"\n  node_id = "x"\n}`, 'c.hcl'), {
      message: /"node_id": a client-only agent's plugin "hp" serves its own client's node/,
    });
  });
});
