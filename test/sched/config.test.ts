/**
 * The scheduler agent's config file (issue 6 scope 6): the reference agent's keys, the other
 * regions' addresses, the event stream settings, and errors that name file, line and key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';

describe('scheduler agent config', () => {
  it('reads the reference keys, region addresses and the event stream settings', () => {
    const c = parseSchedAgentConfig(
      `data_dir   = "/var/lib/cairn/sched"
region     = "europe"
datacenter = "eu-west-1"
name       = "s1"
addresses { http = "0.0.0.0" }
ports     { http = 4747 }
acl {
  enabled           = true
  replication_token = "env://SCHED_REPLICATION_TOKEN"
}
server {
  enabled                  = true
  authoritative_region     = "global"
  event_buffer_size        = 250
  event_heartbeat_interval = "5s"
}
region_addresses { global = "10.0.0.10:4646" }
`,
      'europe.hcl',
      { SCHED_REPLICATION_TOKEN: ' 6f3c9a1e-0000-4000-8000-000000000001\n' },
    );
    assert.deepEqual(
      [c.dataDir, c.region, c.datacenter, c.nodeName, c.httpAddress, c.authoritativeRegion, c.regionAddresses, c.acl, c.eventBufferSize, c.eventHeartbeatMs, c.eventBroker],
      ['/var/lib/cairn/sched', 'europe', 'eu-west-1', 's1', '0.0.0.0:4747', 'global', { global: '10.0.0.10:4646' }, { enabled: true, replicationToken: '6f3c9a1e-0000-4000-8000-000000000001' }, 250, 5000, true],
    );
  });

  it('defaults: region global, its own authoritative region, port 4646, ACLs off, 100 batches, the reference heartbeat', () => {
    const c = parseSchedAgentConfig('data_dir = "/tmp/s"', 'a.hcl', {}, 'host-a');
    assert.deepEqual(
      [c.region, c.authoritativeRegion, c.datacenter, c.nodeName, c.httpAddress, c.acl.enabled, c.eventBufferSize, c.eventHeartbeatMs, c.regionAddresses],
      ['global', 'global', 'dc1', 'host-a', '127.0.0.1:4646', false, 100, undefined, {}],
    );
  });

  it('refuses bad values with file:line and the key', () => {
    const bad: [string, RegExp][] = [
      ['region_addresses { global = "nowhere" }', /^b\.hcl:2: "region_addresses": global: "nowhere" is not host:port$/],
      ['region_addresses { global = "10.0.0.1:4646" }', /^b\.hcl:2: "region_addresses": global is this agent's own region$/],
      ['server {\n  event_buffer_size = -1\n}', /^b\.hcl:3: .*event_buffer_size/],
      ['server {\n  event_heartbeat_interval = "soon"\n}', /^b\.hcl:3: .*event_heartbeat_interval/],
      ['acl {\n  replication_token = "env://MISSING"\n}', /^b\.hcl:3: "replication_token": .*MISSING/],
      ['colour = "red"', /^b\.hcl:2: unknown key "colour"/],
    ];
    for (const [text, want] of bad) assert.throws(() => parseSchedAgentConfig(`data_dir = "/tmp/x"\n${text}`, 'b.hcl'), { message: want }, text);
  });
});
