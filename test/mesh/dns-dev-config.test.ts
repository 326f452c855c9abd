/**
 * How the DNS server is configured (issue 16 scope 7): the agent file's `addresses.dns`,
 * `ports.dns` (8600 by default, -1 for none), `domain`, `recursors`, `dns_config` and
 * `acl.tokens.dns`, with errors naming the line; and `cairn dev -mesh-dns-address`, whose
 * DNS server answers for the dev agent's own `consul` service as a real child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { parseMeshAgentConfig } from '../../src/services/mesh/config.js';
import { dig } from './dig.js';
import { CAIRN_BIN } from '../bin.js';

const parse = (text: string) => parseMeshAgentConfig(`data_dir = "/tmp/m"\n${text}`, 'mesh.hcl', { DNS_TOKEN: 'tok' });

describe('discovery DNS configuration', () => {
  it('defaults: 127.0.0.1:8600, domain cairn, no recursors, TTL 0, warning instances in', () => {
    assert.deepEqual(parse('').dns, {
      address: '127.0.0.1:8600',
      domain: 'cairn',
      recursors: [],
      nodeTtl: 0,
      serviceTtl: {},
      onlyPassing: false,
      recursorTimeoutMs: 2000,
    });
    assert.equal(parse('ports { dns = -1 }').dns, undefined, '-1: no DNS server');
  });

  it('the reference keys', () => {
    const c = parse(`addresses { dns = "::1" }
ports { dns = 53 }
domain = "Consul."
recursors = ["10.0.0.2", "1.1.1.1:5353", "[2001:db8::1]:53", "2001:db8::2"]
dns_config {
  node_ttl = "10s"
  service_ttl = { "*" = "5s", "web" = "1m" }
  only_passing = true
  allow_stale = false
  recursor_timeout = "3s"
}
acl { tokens { dns = "env://DNS_TOKEN" } }
`);
    assert.deepEqual(c.dns, {
      address: '[::1]:53',
      domain: 'consul',
      recursors: ['10.0.0.2:53', '1.1.1.1:5353', '[2001:db8::1]:53', '[2001:db8::2]:53'],
      nodeTtl: 10,
      serviceTtl: { '*': 5, web: 60 },
      onlyPassing: true,
      recursorTimeoutMs: 3000,
    });
    assert.equal(c.acl.dnsToken, 'tok');
  });

  it('bad values name the file, line and key', () => {
    const bad = (text: string, re: RegExp) =>
      assert.throws(
        () => parse(text),
        (e: unknown) => e instanceof ConfigError && re.test(e.message),
        text,
      );
    bad('recursors = ["dns.google"]', /mesh\.hcl:\d+.*"recursors": "dns\.google" is not an IP address/);
    bad('recursors = ["10.0.0.1:99999"]', /"recursors": "10\.0\.0\.1:99999"/);
    bad('domain = "a..b"', /"domain": "a\.\.b" is not a DNS name/);
    bad('ports { dns = -2 }', /dns/);
    bad('dns_config { service_ttl = { web = "soon" } }', /"service_ttl": "web"/);
  });
});

describe('cairn dev: the DNS server', () => {
  it("-mesh-dns-address binds it; the dev agent's own service answers", { timeout: 60_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-dns-'));
    const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
      (p) => `-${p}-address=127.0.0.1:0`,
    );
    const child = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, ...ports], { stdio: ['ignore', 'pipe', 'ignore'] });
    t.after(() => {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });
    const address = await new Promise<string>((resolve, reject) => {
      let found = '';
      child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^ {4}Discovery DNS: +(\S+)/.exec(line);
        if (m) found = m[1]!;
        if (line.startsWith('Press Ctrl-C')) resolve(found);
      });
    });
    assert.match(address, /^127\.0\.0\.1:\d+$/);
    const port = Number(address.split(':')[1]);
    // The agent syncs its own node and `consul` service just after it starts.
    let r = await dig(port, 'consul.service.cairn');
    for (let i = 0; i < 50 && r.answer.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await dig(port, 'consul.service.cairn');
    }
    assert.deepEqual(
      r.answer.map((x) => [x.type, x.data]),
      [['A', '127.0.0.1']],
      r.text,
    );
    assert.deepEqual(
      (await dig(port, 'dev.node.cairn', 'A', ['+tcp'])).answer.map((x) => x.data),
      ['127.0.0.1'],
    );
  });
});
