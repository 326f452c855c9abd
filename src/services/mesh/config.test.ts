/**
 * The discovery agent's `acl.tokens.agent` key: read like the other tokens (`env://`
 * references resolved), absent when not set.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseMeshAgentConfig } from './config.js';

it('reads acl.tokens.agent (the token a follower syncs its node with), resolving env://', () => {
  const text = 'data_dir = "/tmp/x"\nacl {\n  enabled = true\n  tokens {\n    agent = "env://MESH_AGENT_TOKEN"\n  }\n}\n';
  const c = parseMeshAgentConfig(text, 'agent.hcl', { MESH_AGENT_TOKEN: ' 0f1e2d3c-4b5a-4697-8877-665544332211\n' });
  assert.equal(c.acl.agentToken, '0f1e2d3c-4b5a-4697-8877-665544332211');
  assert.equal(parseMeshAgentConfig('data_dir = "/tmp/x"\n', 'agent.hcl').acl.agentToken, undefined);
  assert.throws(() => parseMeshAgentConfig(text, 'agent.hcl', {}), /agent\.hcl.*agent/);
});
