/**
 * The agents' state key in their config (issue 14 item 1): the discovery agent's `encrypt`
 * and the scheduler's `server { encrypt }` (where the reference products take their gossip
 * keys) give the 32-byte key directly, through `env://` or through `file://`; anything that
 * is not base64 of 32 bytes, an unset variable or an unreadable file is refused with the
 * file, line and key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseMeshAgentConfig } from '../src/services/mesh/config.js';
import { parseSchedAgentConfig } from '../src/services/sched/config.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-key-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SERVICES = {
  mesh: { parse: parseMeshAgentConfig, hcl: (v: string) => `data_dir = "/tmp/m"\nencrypt = "${v}"\n`, line: 2 },
  sched: { parse: parseSchedAgentConfig, hcl: (v: string) => `data_dir = "/tmp/s"\nserver {\n  encrypt = "${v}"\n}\n`, line: 3 },
} as const;

for (const [name, s] of Object.entries(SERVICES)) {
  describe(`${name} agent: the state key setting`, () => {
    it('takes the key as base64, from env:// or from file://; absent means the key file', () => {
      const key = randomBytes(32);
      const file = join(dir, `${name}.key`);
      writeFileSync(file, `${key.toString('base64')}\n`);
      assert.deepEqual(Buffer.from(s.parse(s.hcl(key.toString('base64')), 'a.hcl').stateKey!), key);
      assert.deepEqual(Buffer.from(s.parse(s.hcl('env://STATE_KEY'), 'a.hcl', { STATE_KEY: key.toString('base64') }).stateKey!), key);
      assert.deepEqual(Buffer.from(s.parse(s.hcl(`file://${file}`), 'a.hcl').stateKey!), key);
      assert.equal(s.parse('data_dir = "/tmp/x"\n', 'a.hcl').stateKey, undefined);
    });

    it('refuses a key that is not base64 of 32 bytes, an unset variable and an unreadable file, naming file, line and key', () => {
      const bad: [string, RegExp][] = [
        [randomBytes(16).toString('base64'), /"encrypt": expected a base64 32-byte key/],
        ['not a key', /"encrypt": expected a base64 32-byte key/],
        ['env://NO_SUCH_KEY', /"encrypt": environment variable "NO_SUCH_KEY" is not set or empty/],
        [`file://${join(dir, 'missing.key')}`, /"encrypt": cannot read ".*missing\.key": ENOENT/],
      ];
      for (const [value, why] of bad) {
        assert.throws(
          () => s.parse(s.hcl(value), 'b.hcl'),
          (err: Error) => {
            assert.match(err.message, new RegExp(`^b\\.hcl:${s.line}: `));
            assert.match(err.message, why);
            return true;
          },
          value,
        );
      }
    });
  });
}
