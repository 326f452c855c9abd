/**
 * The client's template hook (issue 27 scopes 5 and 6) on real task processes and files,
 * fed by a source the test controls (template-hook.ts): the first render gates the start and
 * says what it waits for, re-renders act only when the bytes change, each change mode, env
 * templates, an outage that leaves the task running, and destinations that leave the task
 * directory.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { until } from '../processes.js';
import { runTemplateAlloc } from './template-hook.js';

const KEY = 'kv.block(app/config)';
const tpl = (over: Record<string, unknown> = {}) => ({ EmbeddedTmpl: 'value={{ key "app/config" }}\n', DestPath: 'local/app.conf', Splay: 0, ...over });
const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
const events = (s: { Events: readonly { Type: string; Message: string }[] }) => s.Events.map((e) => `${e.Type}: ${e.Message}`);

describe('template hook', () => {
  it('waits for a missing key with a Missing: event, starts once it renders, and re-renders with a restart when it changes', async () => {
    const a = runTemplateAlloc('cp local/app.conf local/seen.$$; exec sleep 60', [tpl()]);
    try {
      await until('the Missing: event', 10_000, () => (events(a.state()).includes(`Template: Missing: ${KEY}`) ? true : undefined));
      assert.equal(a.state().State, 'pending', 'the task does not start before its template rendered');
      assert.deepEqual(a.state().Templates, [{ DestPath: 'local/app.conf', State: 'waiting', Missing: [KEY], LastRendered: null }]);
      assert.ok(!existsSync(join(a.taskDir, 'local/app.conf')));

      a.source.set(KEY, 'one');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      assert.equal(read(join(a.taskDir, 'local/app.conf')), 'value=one\n');
      assert.equal(statSync(join(a.taskDir, 'local/app.conf')).mode & 0o777, 0o644);
      assert.equal(a.state().Templates?.[0]?.State, 'rendered');

      a.source.set(KEY, 'two');
      await until('a restart', 10_000, () => (a.state().Restarts === 1 && a.state().State === 'running' ? true : undefined));
      assert.equal(read(join(a.taskDir, 'local/app.conf')), 'value=two\n');
      assert.ok(events(a.state()).includes('Restart Signaled: Template with change_mode restart re-rendered'), events(a.state()).join('\n'));
    } finally {
      await a.stop();
    }
  });

  it('acts only when the rendered bytes change: the same value rewrites nothing and restarts nothing', async () => {
    const a = runTemplateAlloc('exec sleep 60', [tpl({ EmbeddedTmpl: '{{ if keyExists "app/config" }}present{{ end }}\n{{ key "app/config" | len }}' })]);
    try {
      const key2 = 'kv.exists(app/config)';
      a.source.set(KEY, 'abc');
      a.source.set(key2, true);
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      const file = join(a.taskDir, 'local/app.conf');
      const before = statSync(file).mtimeMs;
      a.source.set(KEY, 'xyz'); // same length: same output
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(statSync(file).mtimeMs, before);
      assert.equal(a.state().Restarts, 0);
      assert.ok(!events(a.state()).some((e) => e.startsWith('Restart Signaled')));
    } finally {
      await a.stop();
    }
  });

  it('noop rewrites the file only; signal sends SIGHUP to the task', async () => {
    const script = "trap 'cp local/sig.conf local/got-hup' HUP; while :; do sleep 0.1; done";
    const a = runTemplateAlloc(script, [
      tpl({ DestPath: 'local/noop.conf', ChangeMode: 'noop' }),
      tpl({ DestPath: 'local/sig.conf', EmbeddedTmpl: 'sig={{ key "app/sig" }}', ChangeMode: 'signal', ChangeSignal: 'SIGHUP' }),
    ]);
    try {
      a.source.set(KEY, 'one');
      a.source.set('kv.block(app/sig)', 'a');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      a.source.set(KEY, 'two');
      await until('noop rewrite', 10_000, () => (read(join(a.taskDir, 'local/noop.conf')) === 'value=two\n' ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(a.state().Restarts, 0);
      assert.ok(!existsSync(join(a.taskDir, 'local/got-hup')), 'noop signals nothing');

      a.source.set('kv.block(app/sig)', 'b');
      await until('the task got SIGHUP', 10_000, () => (read(join(a.taskDir, 'local/got-hup')) === 'sig=b' ? true : undefined));
      assert.equal(a.state().Restarts, 0);
      assert.ok(events(a.state()).includes('Signaling: Task being sent a signal'));
    } finally {
      await a.stop();
    }
  });

  it('env = true: the variables reach the environment of the next start', async () => {
    const body = '# comment\nexport DB_USER = app\nDB_PASS={{ key "app/config" | toJSON }} # the reference\'s advice for quotes\n';
    const a = runTemplateAlloc('printf "%s|%s" "$DB_USER" "$DB_PASS" > local/env.$$; exec sleep 60', [
      tpl({ DestPath: 'secrets/db.env', EmbeddedTmpl: body, Envvars: true, Perms: '0644' }),
    ]);
    try {
      a.source.set(KEY, 's3cr"et\n#x');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      // Under secrets/ the file is the task's own whatever perms say.
      assert.equal(statSync(join(a.taskDir, 'secrets/db.env')).mode & 0o777, 0o600);
      const envFile = await until('the env file', 10_000, () => {
        const f = readdirSync(join(a.taskDir, 'local')).find((n) => n.startsWith('env.'));
        return f && read(join(a.taskDir, 'local', f));
      });
      assert.equal(envFile, 'app|s3cr"et\n#x');
    } finally {
      await a.stop();
    }
  });

  it('an outage keeps the task running on its last render (stale, one event), and it catches up after', async () => {
    const a = runTemplateAlloc('exec sleep 60', [tpl({ ChangeMode: 'noop' })]);
    try {
      a.source.set(KEY, 'one');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      for (let i = 0; i < 5; i++) a.source.fail(KEY, 'connect ECONNREFUSED 127.0.0.1:8500');
      await until('stale', 5_000, () => (a.state().Templates?.[0]?.State === 'stale' ? true : undefined));
      const t = a.state().Templates![0]!;
      assert.deepEqual(t.Missing, [KEY]);
      assert.equal(t.Error, `${KEY}: connect ECONNREFUSED 127.0.0.1:8500`);
      const outage = events(a.state()).filter((e) => e.startsWith('Template: Source unavailable'));
      assert.deepEqual(outage, [`Template: Source unavailable: ${KEY}: connect ECONNREFUSED 127.0.0.1:8500; templates keep their last render`]);
      assert.equal(a.state().State, 'running');
      assert.equal(read(join(a.taskDir, 'local/app.conf')), 'value=one\n');

      a.source.set(KEY, 'two');
      await until('caught up', 5_000, () => (read(join(a.taskDir, 'local/app.conf')) === 'value=two\n' ? true : undefined));
      assert.equal(a.state().Templates?.[0]?.State, 'rendered');
      // The outage is over once the source kept answering a moment: one event.
      await until('the recovery event', 10_000, () => (events(a.state()).includes(`Template: Source available again: ${KEY}`) ? true : undefined));
      assert.equal(a.state().State, 'running');
    } finally {
      await a.stop();
    }
  });

  it('a failing source before the first render keeps the task waiting and says why, once', async () => {
    const a = runTemplateAlloc('exec sleep 60', [tpl()]);
    try {
      await until('watched', 5_000, () => (a.source.watched().includes(KEY) ? true : undefined));
      for (let i = 0; i < 3; i++) a.source.fail(KEY, 'Unexpected response code: 403 (Permission denied)');
      await until('the event', 5_000, () => (events(a.state()).some((e) => e.startsWith('Template: Source unavailable')) ? true : undefined));
      assert.deepEqual(
        events(a.state()).filter((e) => e.startsWith('Template: Source')),
        [`Template: Source unavailable: ${KEY}: Unexpected response code: 403 (Permission denied); the task waits for it`],
      );
      assert.equal(a.state().State, 'pending');
      assert.equal(a.state().Failed, false);
      assert.equal(a.state().Templates?.[0]?.State, 'waiting');
      assert.equal(a.state().Templates?.[0]?.Error, `${KEY}: Unexpected response code: 403 (Permission denied)`);
      a.source.set(KEY, 'granted');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
    } finally {
      await a.stop();
    }
  });

  it('wait { min max }: changes in quick succession make one re-render once they settle', async () => {
    const a = runTemplateAlloc('exec sleep 60', [tpl({ ChangeMode: 'noop', Wait: { Min: 400e6, Max: 5e9 } })]);
    try {
      a.source.set(KEY, 'v0');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      const file = join(a.taskDir, 'local/app.conf');
      for (let i = 1; i <= 5; i++) {
        a.source.set(KEY, `v${i}`);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(read(file), 'value=v0\n', 'nothing rendered while the data keeps changing');
      }
      await until('one render of the last value', 5_000, () => (read(file) === 'value=v5\n' ? true : undefined));
    } finally {
      await a.stop();
    }
  });

  for (const [dest, prep] of [
    ['../escape.conf', undefined],
    ['local/../../t2/x', undefined],
    ['local/link/x.conf', (dir: string) => symlinkSync('/tmp', join(dir, 'local/link'))],
  ] as const) {
    it(`refuses the destination ${dest}: the task fails to start and nothing is written outside`, async () => {
      const a = runTemplateAlloc('exec sleep 60', [tpl({ DestPath: dest })]);
      try {
        if (prep) {
          mkdirSync(join(a.taskDir, 'local'), { recursive: true });
          prep(a.taskDir);
        }
        a.source.set(KEY, 'one');
        await a.runner.done;
        const s = a.state();
        assert.equal(s.State, 'dead');
        assert.equal(s.Failed, true);
        const failure = s.Events.find((e) => e.Type === 'Setup Failure');
        assert.equal(failure?.Message, `failed to set up the task: template: template destination path escapes the task directory: "${dest}"`);
      } finally {
        await a.stop();
      }
    });
  }

  it('a script change mode runs in the task directory; fail_on_error kills the task', async () => {
    const a = runTemplateAlloc('exec sleep 60', [
      tpl({ ChangeMode: 'script', ChangeScript: { Command: '/bin/sh', Args: ['-c', 'cat local/app.conf > local/script-ran; exit 3'], FailOnError: true } }),
    ]);
    try {
      a.source.set(KEY, 'one');
      await until('running', 10_000, () => (a.state().State === 'running' ? true : undefined));
      a.source.set(KEY, 'two');
      await a.runner.done;
      assert.equal(read(join(a.taskDir, 'local/script-ran')), 'value=two\n');
      const s = a.state();
      assert.equal(s.Failed, true);
      assert.ok(
        events(s).includes(
          'Killing: Template failed to run script /bin/sh with arguments [-c cat local/app.conf > local/script-ran; exit 3] on change: non-zero exit Exit code: 3',
        ),
        events(s).join('\n'),
      );
    } finally {
      await a.stop();
    }
  });
});
