/**
 * The client agent's `vault` block (client/vault-config.ts; reference/integration.md §4): the
 * contract's keys and defaults, the reference's harmless keys accepted, `enabled = false` as
 * without the block, mistakes naming file, line and key; and the node attribute
 * `vault.accessible` a client with the block reports (fingerprint.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprint } from '../../src/services/sched/client/fingerprint.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';

const CLIENT = 'data_dir = "/tmp/s"\nclient {\n  enabled = true\n}\n';

describe('scheduler client vault block', () => {
  it('reads the contract keys, with the defaults for what it leaves out', () => {
    const full = parseSchedAgentConfig(
      `${CLIENT}vault {\n  enabled = true\n  name = "default"\n  address = "http://127.0.0.1:8200/"\n  jwt_auth_backend_path = "/jwt-nomad/"\n  namespace = "team"\n  create_from_role = "web"\n  tls_server_name = "secrets"\n}`,
      'a.hcl',
    );
    assert.deepEqual(full.client?.vault, {
      address: 'http://127.0.0.1:8200',
      jwtAuthBackendPath: 'jwt-nomad',
      namespace: 'team',
      createFromRole: 'web',
      tlsServerName: 'secrets',
      tlsSkipVerify: false,
    });
    const bare = parseSchedAgentConfig(`${CLIENT}vault {}`, 'a.hcl');
    assert.deepEqual(bare.client?.vault, {
      address: 'https://127.0.0.1:8200',
      jwtAuthBackendPath: 'jwt-workloads',
      namespace: '',
      createFromRole: '',
      tlsSkipVerify: false,
    });
    assert.equal(fingerprint(bare.client!).Attributes['vault.accessible'], 'true');
    const off = parseSchedAgentConfig(`${CLIENT}vault {\n  enabled = false\n}`, 'a.hcl');
    assert.equal(off.client?.vault, undefined);
    assert.equal(fingerprint(off.client!).Attributes['vault.accessible'], undefined);
    assert.equal(parseSchedAgentConfig(CLIENT, 'a.hcl').client?.vault, undefined);
  });

  it('refuses a bad address, another cluster, an empty mount path, an unreadable ca_file, naming the line and key', () => {
    const bad: [string, RegExp][] = [
      ['vault {\n  address = "127.0.0.1:8200"\n}', /b\.hcl:6.*address.*is not http\(s\):\/\/host:port/],
      ['vault {\n  name = "eu"\n}', /b\.hcl:6.*name.*only the "default" cluster is supported/],
      ['vault {\n  jwt_auth_backend_path = "/"\n}', /b\.hcl:6.*jwt_auth_backend_path.*must not be empty/],
      ['vault {\n  ca_file = "/nonexistent/ca.pem"\n}', /b\.hcl:6.*ca_file.*ENOENT/],
      ['vault {\n  token = "x"\n}', /token/],
    ];
    for (const [text, want] of bad) assert.throws(() => parseSchedAgentConfig(`${CLIENT}${text}`, 'b.hcl'), { message: want }, text);
  });
});
