import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_USERNAME_TEMPLATE, compileUsernameTemplate } from './username-template.js';

const now = new Date('2026-01-02T03:04:05Z');
const run = (template: string, DisplayName = 'token', RoleName = 'myrolename') => compileUsernameTemplate(template)({ DisplayName, RoleName, now });

describe('database username templates', () => {
  it("renders the reference's default PostgreSQL template: v-<display≤8>-<role≤8>-<20 random>-<unix seconds>, at most 63", () => {
    const u = run(DEFAULT_USERNAME_TEMPLATE, 'approle-long-name', 'myrolename');
    assert.match(u, /^v-approle--myrolena-[A-Za-z0-9]{20}-1767323045$/);
    assert.notEqual(run(DEFAULT_USERNAME_TEMPLATE), run(DEFAULT_USERNAME_TEMPLATE), 'random differs each time');
    assert.equal(run(`{{ printf "%s%s" (random 60) (random 60) | truncate 63 }}`).length, 63);
  });

  it('pipes, nested calls, text around actions and the other functions', () => {
    assert.equal(run('app_{{.RoleName | uppercase}}_{{ unix_time }}'), 'app_MYROLENAME_1767323045');
    assert.equal(run('{{ replace "-" "_" .DisplayName }}', 'a-b-c'), 'a_b_c');
    assert.equal(run('{{ printf "%s-%d%%" (.DisplayName | truncate 2 | lowercase) 7 }}', 'ToKeN'), 'to-7%');
    assert.match(run('{{ uuid }}'), /^[0-9a-f-]{36}$/);
  });

  it('refuses malformed and unbounded templates with a 400 naming username_template', () => {
    for (const [t, why] of [
      ['{{ nope }}', /function "nope" not defined/],
      ['{{ .Secret }}', /unknown field \.Secret/],
      ['{{ printf "x" ', /unclosed action/],
      ['{{ (random 3 }}', /missing "\)"/],
      ['{{ "open }}', /unterminated string/],
      ['x'.repeat(3000), /at most 2048 characters/],
      ['{{' + '('.repeat(20) + 'unix_time' + ')'.repeat(20) + '}}', /nested too deep/],
    ] as const) {
      assert.throws(
        () => run(t),
        (err: Error) => err.message.startsWith('username_template: ') && why.test(err.message),
        t.slice(0, 40),
      );
    }
    assert.throws(() => run('{{ random 500 }}'), /random: the length must be 1 to 128/);
    assert.throws(() => run('{{ printf "%s" "" }}'), /the username is empty/);
  });
});
