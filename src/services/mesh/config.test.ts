/**
 * The discovery agent's configuration keys for the KV store (`limits.kv_max_value_size`,
 * `acl.enable_key_list_policy`) and `acl.tokens.agent`: read like the other tokens (`env://`
 * references resolved), absent when not set.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_KV_MAX_VALUE_SIZE, parseMeshAgentConfig } from './config.js';

describe('mesh agent config: KV keys', () => {
  it('defaults: 512 KiB values, no key list policy', () => {
    const c = parseMeshAgentConfig('data_dir = "/tmp/x"', 'agent.hcl');
    assert.equal(c.kvMaxValueSize, DEFAULT_KV_MAX_VALUE_SIZE);
    assert.equal(DEFAULT_KV_MAX_VALUE_SIZE, 524288);
    assert.equal(c.acl.enableKeyListPolicy, false);
  });

  it('reads limits.kv_max_value_size and acl.enable_key_list_policy', () => {
    const c = parseMeshAgentConfig('data_dir = "/tmp/x"\nlimits { kv_max_value_size = 1048576 }\nacl { enable_key_list_policy = true }', 'agent.hcl');
    assert.equal(c.kvMaxValueSize, 1048576);
    assert.equal(c.acl.enableKeyListPolicy, true);
  });

  it('reads limits.txn_max_req_len (default 512 KiB)', () => {
    assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"\nlimits { txn_max_req_len = 65536 }', 'agent.hcl').txnMaxReqLen, 65536);
    assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"\n', 'agent.hcl').txnMaxReqLen, 524288);
  });

  it('refuses a size below 1, naming the key', () => {
    assert.throws(() => parseMeshAgentConfig('data_dir = "/tmp/x"\nlimits { kv_max_value_size = 0 }', 'agent.hcl'), /kv_max_value_size/);
  });
});

it('reads acl.tokens.agent (the token a follower syncs its node with), resolving env://', () => {
  const text = 'data_dir = "/tmp/x"\nacl {\n  enabled = true\n  tokens {\n    agent = "env://MESH_AGENT_TOKEN"\n  }\n}\n';
  const c = parseMeshAgentConfig(text, 'agent.hcl', { MESH_AGENT_TOKEN: ' 0f1e2d3c-4b5a-4697-8877-665544332211\n' });
  assert.equal(c.acl.agentToken, '0f1e2d3c-4b5a-4697-8877-665544332211');
  assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"\n', 'agent.hcl').acl.agentToken, undefined);
  assert.throws(() => parseMeshAgentConfig(text, 'agent.hcl', {}), /agent\.hcl.*agent/);
});
