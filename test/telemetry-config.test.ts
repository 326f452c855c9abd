/**
 * The reference products' `telemetry` blocks load unchanged in every service's file (issue
 * 14 item 7): Cairn's metrics need no configuration, but files written for the references
 * carry these blocks and must not fail on them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMeshAgentConfig } from '../src/services/mesh/config.js';
import { parseSchedAgentConfig } from '../src/services/sched/config.js';
import { parseSecretsServerConfig } from '../src/services/secrets/config.js';

describe('telemetry block (issue 14 item 7)', () => {
  it("loads the references' telemetry blocks unchanged: metrics need no configuration", () => {
    const sched = parseSchedAgentConfig(
      'data_dir = "/tmp/s"\ntelemetry {\n  prometheus_metrics = true\n  publish_node_metrics = true\n  collection_interval = "1s"\n  disable_hostname = true\n}\n',
      'a.hcl',
    );
    assert.equal(sched.dataDir, '/tmp/s');
    const mesh = parseMeshAgentConfig('data_dir = "/tmp/m"\ntelemetry {\n  prometheus_retention_time = "30s"\n  disable_hostname = true\n}\n', 'm.hcl');
    assert.equal(mesh.dataDir, '/tmp/m');
    const secrets = parseSecretsServerConfig(
      'storage "sqlite" { path = "s.db" }\nlistener "tcp" { tls_disable = true }\ntelemetry {\n  prometheus_retention_time = "30s"\n  disable_hostname = true\n}\n',
      's.hcl',
    );
    assert.equal(secrets.listeners.length, 1);
  });
});
