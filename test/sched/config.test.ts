/**
 * The scheduler agent's config file (issue 6 scope 6): the reference agent's keys, the other
 * regions' addresses, the event stream settings, PostgreSQL storage shared by the servers of
 * a region with their `advertise` address, and errors that name file, line and key.
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
  acl_token_gc_threshold   = "30m"
}
region_addresses { global = "10.0.0.10:4646" }
`,
      'europe.hcl',
      { SCHED_REPLICATION_TOKEN: ' 6f3c9a1e-0000-4000-8000-000000000001\n' },
    );
    assert.deepEqual(
      [
        c.dataDir,
        c.region,
        c.datacenter,
        c.nodeName,
        c.httpAddress,
        c.authoritativeRegion,
        c.regionAddresses,
        c.acl,
        c.eventBufferSize,
        c.eventHeartbeatMs,
        c.eventBroker,
        c.aclTokenGcThresholdMs,
      ],
      [
        '/var/lib/cairn/sched',
        'europe',
        'eu-west-1',
        's1',
        '0.0.0.0:4747',
        'global',
        { global: '10.0.0.10:4646' },
        { enabled: true, replicationToken: '6f3c9a1e-0000-4000-8000-000000000001' },
        250,
        5000,
        true,
        1_800_000,
      ],
    );
  });

  it('defaults: region global, its own authoritative region, port 4646, ACLs off, 100 batches, the reference heartbeat', () => {
    const c = parseSchedAgentConfig('data_dir = "/tmp/s"', 'a.hcl', {}, 'host-a');
    assert.deepEqual(
      [
        c.region,
        c.authoritativeRegion,
        c.datacenter,
        c.nodeName,
        c.httpAddress,
        c.acl.enabled,
        c.eventBufferSize,
        c.eventHeartbeatMs,
        c.regionAddresses,
        c.aclTokenGcThresholdMs,
      ],
      ['global', 'global', 'dc1', 'host-a', '127.0.0.1:4646', false, 100, undefined, {}, undefined],
    );
  });

  it('reads storage "postgresql" (env:// URL, default table and parallelism) and advertise.http', () => {
    const c = parseSchedAgentConfig(
      `data_dir = "/tmp/s"
storage "postgresql" {
  connection_url = "env://PG_URL"
}
advertise { http = "10.0.1.5" }
`,
      'pg.hcl',
      { PG_URL: 'postgres://cairn:pw@db:5432/cairn\n' },
    );
    assert.deepEqual(c.storage, { connectionUrl: 'postgres://cairn:pw@db:5432/cairn', table: 'cairn_sched', maxParallel: 10 });
    assert.deepEqual(c.advertiseHttp, { host: '10.0.1.5' });
    const d = parseSchedAgentConfig(
      `data_dir = "/tmp/s"
storage "postgresql" {
  connection_url = "postgresql://db/cairn"
  table          = "sched.europe"
  max_parallel   = 3
}
advertise { http = "[fd00::5]:4747" }
`,
      'pg.hcl',
    );
    assert.deepEqual(d.storage, { connectionUrl: 'postgresql://db/cairn', table: 'sched.europe', maxParallel: 3 });
    assert.deepEqual(d.advertiseHttp, { host: 'fd00::5', port: 4747 });
    const hosts: [string, object][] = [
      ['sched-1.internal:4646', { host: 'sched-1.internal', port: 4646 }],
      ['fd00::5', { host: 'fd00::5' }],
      ['[fd00::5]', { host: 'fd00::5' }],
    ];
    for (const [http, want] of hosts) {
      assert.deepEqual(parseSchedAgentConfig(`data_dir = "/tmp/s"\nadvertise { http = "${http}" }`, 'a.hcl').advertiseHttp, want, http);
    }
    const plain = parseSchedAgentConfig('data_dir = "/tmp/s"', 'a.hcl');
    assert.deepEqual([plain.storage, plain.advertiseHttp], [undefined, undefined], 'SQLite and the bound address by default');
  });

  it('refuses bad values with file:line and the key', () => {
    const bad: [string, RegExp][] = [
      ['region_addresses { global = "nowhere" }', /^b\.hcl:2: "region_addresses": global: "nowhere" is not host:port$/],
      ['region_addresses { global = "10.0.0.1:4646" }', /^b\.hcl:2: "region_addresses": global is this agent's own region$/],
      ['server {\n  event_buffer_size = -1\n}', /^b\.hcl:3: .*event_buffer_size/],
      ['server {\n  event_heartbeat_interval = "soon"\n}', /^b\.hcl:3: .*event_heartbeat_interval/],
      ['acl {\n  replication_token = "env://MISSING"\n}', /^b\.hcl:3: "replication_token": .*MISSING/],
      ['colour = "red"', /^b\.hcl:2: unknown key "colour"/],
      ['storage "postgresql" {\n  connection_url = "mysql://db"\n}', /^b\.hcl:3: "connection_url" must be a postgres:\/\/ or postgresql:\/\/ URL$/],
      ['storage "postgresql" {\n  connection_url = "env://NO_PG"\n}', /^b\.hcl:3: "connection_url": .*NO_PG/],
      ['storage "postgresql" {\n  table = "t"\n}', /^b\.hcl:2: .*connection_url/],
      ['storage "postgresql" {\n  connection_url = "postgres://db"\n  max_parallel = 0\n}', /^b\.hcl:4: .*max_parallel/],
      ['storage "mysql" {\n  connection_url = "postgres://db"\n}', /^b\.hcl:2: .*mysql/],
      ['advertise {\n  http = "host:99999"\n}', /^b\.hcl:3: "http": "host:99999" is not a host or host:port$/],
      ['advertise {\n  http = ""\n}', /^b\.hcl:3: "http": "" is not a host or host:port$/],
    ];
    for (const [text, want] of bad) assert.throws(() => parseSchedAgentConfig(`data_dir = "/tmp/x"\n${text}`, 'b.hcl'), { message: want }, text);
  });
});
