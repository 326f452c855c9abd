/**
 * Cairn's version and build (kernel/version): `cairn version` and `cairn -version`, the
 * line every server logs as it starts, and where the secrets service reports it as the
 * reference does (`sys/seal-status` `version` and `build_date`, `sys/health` `version`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../src/cli/main.js';
import { BUILD, VERSION, versionText } from '../src/kernel/version/index.js';
import { startSealedServer } from './helpers.js';
import { startCairnProcess } from './processes.js';

/** `dist/build-info.json` ({commit, date}, scripts/build-info.mjs): the build the started processes report. */
const BUILT = ((): { commit?: string; date?: string } => {
  try {
    return JSON.parse(readFileSync(join(import.meta.dirname, '..', 'dist', 'build-info.json'), 'utf8')) as { commit?: string; date?: string };
  } catch {
    return {};
  }
})();

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {}, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('version', () => {
  it("is package.json's", () => {
    assert.equal(VERSION, PACKAGE_VERSION);
  });

  it('reads as the reference CLI prints it, with the build when known', () => {
    assert.equal(versionText('1.2.3', { commit: 'abc123', date: '2025-01-31T12:00:00Z' }), 'Cairn v1.2.3 (abc123), built 2025-01-31T12:00:00Z');
    assert.equal(versionText('1.2.3', { commit: '', date: '' }), 'Cairn v1.2.3 (unknown build)');
  });

  for (const argv of [['version'], ['-version'], ['--version'], ['-v']]) {
    it(`cairn ${argv.join(' ')} prints it and exits 0`, async () => {
      const r = await run(argv);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${versionText()}\n`);
      assert.match(r.stdout, new RegExp(`^Cairn v${PACKAGE_VERSION.replace(/\./g, '\\.')} \\(`));
    });
  }

  it('sys/seal-status reports version and build_date, sys/health version, sealed or not', async () => {
    const s = await startSealedServer();
    try {
      const status = await s.call('GET', '/v1/sys/seal-status');
      assert.equal(status.json.version, PACKAGE_VERSION);
      assert.equal(status.json.build_date, BUILD.date);
      assert.equal((await s.call('GET', '/v1/sys/health')).json.version, PACKAGE_VERSION);
    } finally {
      await s.close();
    }
  });
});

describe('every server logs the version as it starts', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-version-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const servers: [string, string[], string, string][] = [
    [
      'secrets server',
      ['secrets', 'server'],
      'secrets service listening',
      `storage "sqlite" {\n  path = "${join(dir, 'secrets.db')}"\n}\nlistener "tcp" {\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`,
    ],
    ['mesh agent', ['mesh', 'agent'], 'discovery service listening', `data_dir = "${join(dir, 'mesh')}"\nports {\n  http = 0\n  dns = 0\n}\n`],
    [
      'sched agent',
      ['sched', 'agent'],
      'scheduler service listening',
      `data_dir = "${join(dir, 'sched')}"\nports { http = 0 }\nname = "v1"\nadvertise { http = "127.0.0.1" }\n`,
    ],
    [
      'gateway server',
      ['gateway', 'server'],
      'gateway listening',
      `controller {\n  name = "c1"\n}\nlistener "tcp" {\n  purpose = "api"\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\nlistener "tcp" {\n  purpose = "cluster"\n  address = "127.0.0.1:0"\n}\n`,
    ],
  ];
  for (const [name, args, ready, config] of servers) {
    it(`cairn ${name}`, async () => {
      const file = join(dir, `${args.join('-')}.hcl`);
      writeFileSync(file, config);
      const p = await startCairnProcess([...args, `-config=${file}`], {}, ready);
      try {
        const first = JSON.parse(p.log[0]) as Record<string, unknown>;
        assert.equal(first.msg, 'starting Cairn');
        assert.equal(first.version, PACKAGE_VERSION);
        // The process runs the built tree (test/bin.ts): its build is dist/build-info.json's.
        assert.equal(first.commit, BUILT.commit || 'unknown');
        assert.equal(first.build_date, BUILT.date || 'unknown');
      } finally {
        await p.kill();
      }
    });
  }
});
