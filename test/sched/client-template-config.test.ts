/**
 * The client's `template { … }` block (template-config.ts): the reference's defaults when
 * absent, each setting read, and errors naming file, line and key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';

const agent = (template: string) => `data_dir = "/tmp/s"\nclient {\n  enabled = true\n${template}\n}`;

describe('scheduler client template config', () => {
  it("has the reference's defaults without a template block", () => {
    assert.equal(parseSchedAgentConfig(agent(''), 'a.hcl').client?.template, undefined);
    assert.deepEqual(parseSchedAgentConfig(agent('  template {}'), 'a.hcl').client?.template, {
      wait: { minMs: 5000, maxMs: 240_000 },
      blockQueryWaitMs: 300_000,
      secretPollIntervalMs: 300_000,
      consulRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
      vaultRetry: { backoffMs: 250, maxBackoffMs: 60_000 },
    });
  });

  it('reads every setting', () => {
    const c = parseSchedAgentConfig(
      agent(`  template {
    wait { min = "1s"  max = "10s" }
    block_query_wait     = "30s"
    secret_poll_interval = "1m"
    consul_retry { backoff = "100ms"  max_backoff = "5s" }
    vault_retry  { backoff = "1s" }
  }`),
      'a.hcl',
    );
    assert.deepEqual(c.client?.template, {
      wait: { minMs: 1000, maxMs: 10_000 },
      blockQueryWaitMs: 30_000,
      secretPollIntervalMs: 60_000,
      consulRetry: { backoffMs: 100, maxBackoffMs: 5000 },
      vaultRetry: { backoffMs: 1000, maxBackoffMs: 60_000 },
    });
  });

  for (const [block, message] of [
    ['wait { min = "soon" }', /a\.hcl:5: "min": "soon" is not a duration/],
    ['wait { min = "10s"  max = "1s" }', /"max" \(1s\) is below "min" \(10s\)/],
    ['block_query_wait = "0s"', /"block_query_wait" must be above 0/],
    ['secret_poll_interval = "-1m"', /"secret_poll_interval": "-1m" is not a duration/],
    ['consul_retry { backoff = "2m" }', /"max_backoff" \(60000ms\) is below "backoff" \(120000ms\)/],
  ] as const) {
    it(`refuses ${block}`, () => assert.throws(() => parseSchedAgentConfig(agent(`  template {\n    ${block}\n  }`), 'a.hcl'), message));
  }
});
