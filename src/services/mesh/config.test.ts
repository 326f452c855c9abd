/** The KV keys of the agent configuration: `limits.kv_max_value_size` and `acl.enable_key_list_policy`. */
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

  it('refuses a size below 1, naming the key', () => {
    assert.throws(() => parseMeshAgentConfig('data_dir = "/tmp/x"\nlimits { kv_max_value_size = 0 }', 'agent.hcl'), /kv_max_value_size/);
  });
});
