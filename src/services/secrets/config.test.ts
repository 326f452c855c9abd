// Tests of the secrets server's config file: the typed result, defaults, the TLS and
// storage rules, and the mapping to the kernel's listener options.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../kernel/config/index.js';
import { DEFAULT_MAX_REQUEST_BYTES } from '../../kernel/http/index.js';
import { parseSecretsServerConfig, toListenerOptions } from './config.js';

/** What a listener block without limit keys gets: Vault's timeouts, 4096 connections. */
const DEFAULT_LIMITS = { headerTimeoutMs: 5_000, requestTimeoutMs: 30_000, idleTimeoutMs: 300_000, maxConnections: 4096 };

const parse = (text: string) => parseSecretsServerConfig(text, 'secrets.hcl');

function messageOf(text: string): string {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

const FULL = `storage "sqlite" {
  path = "/var/lib/cairn/secrets.db"
}
listener "tcp" {
  address       = "0.0.0.0:8200"
  tls_cert_file = "/etc/cairn/tls.crt"
  tls_key_file  = "/etc/cairn/tls.key"
  telemetry { unauthenticated_metrics_access = true }
}
listener "tcp" {
  address = "127.0.0.1:8201", tls_disable = true, require_request_header = true, max_request_size = -1
  http_read_header_timeout = "2s", http_read_timeout = "1m", http_idle_timeout = 0, max_connections = 100
}
api_addr      = "https://secrets.example.com:8200"
cluster_addr  = "https://10.0.0.1:8201"
cluster_name  = "prod"
ui            = true
log_level     = "Warn"
disable_mlock = true
`;

describe('parseSecretsServerConfig', () => {
  it('returns the typed configuration', () => {
    assert.deepEqual(parse(FULL), {
      file: 'secrets.hcl',
      storage: { type: 'sqlite', path: '/var/lib/cairn/secrets.db' },
      listeners: [
        {
          address: '0.0.0.0:8200',
          tls: { certFile: '/etc/cairn/tls.crt', keyFile: '/etc/cairn/tls.key', clientCerts: { mode: 'request' } },
          maxRequestBytes: 0,
          requireRequestHeader: false,
          limits: DEFAULT_LIMITS,
          unauthenticatedMetricsAccess: true,
        },
        {
          address: '127.0.0.1:8201',
          tls: undefined,
          maxRequestBytes: -1,
          requireRequestHeader: true,
          limits: { headerTimeoutMs: 2000, requestTimeoutMs: 60_000, idleTimeoutMs: 0, maxConnections: 100 },
          unauthenticatedMetricsAccess: false,
        },
      ],
      apiAddr: 'https://secrets.example.com:8200',
      clusterAddr: 'https://10.0.0.1:8201',
      clusterName: 'prod',
      ui: true,
      logLevel: 'warn',
      managedNamespaces: false,
      disableClustering: false,
      disablePerformanceStandby: false,
      disableMlock: true,
    });
  });

  it('fills defaults: address 127.0.0.1:8200, info logs, 32 MiB bodies', () => {
    const c = parse('storage "sqlite" { path = "s.db" }\nlistener "tcp" { tls_disable = true }\n');
    assert.deepEqual(c.listeners, [
      {
        address: '127.0.0.1:8200',
        tls: undefined,
        maxRequestBytes: 0,
        requireRequestHeader: false,
        limits: DEFAULT_LIMITS,
        unauthenticatedMetricsAccess: false,
      },
    ]);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.ui, false);
    assert.equal(c.apiAddr, undefined);
  });

  it('reads the same configuration from JSON', () => {
    const json = JSON.stringify({
      storage: { sqlite: { path: 's.db' } },
      listener: [{ tcp: { address: '127.0.0.1:0', tls_disable: true } }, { tcp: { address: '127.0.0.1:1', tls_disable: 'true' } }],
      log_level: 'debug',
    });
    const c = parseSecretsServerConfig(json, 'secrets.json');
    assert.deepEqual(
      c.listeners.map((l) => l.address),
      ['127.0.0.1:0', '127.0.0.1:1'],
    );
    assert.equal(c.logLevel, 'debug');
  });

  it('requires both TLS files unless tls_disable = true', () => {
    const base = 'storage "sqlite" { path = "s.db" }\n\n';
    assert.equal(
      messageOf(`${base}listener "tcp" {\n  address = "a:1"\n}\n`),
      'secrets.hcl:3: "tls_cert_file" is required in listener "tcp" unless tls_disable = true',
    );
    assert.equal(
      messageOf(`${base}listener "tcp" {\n  tls_cert_file = "c.pem"\n  tls_disable = false\n}\n`),
      'secrets.hcl:3: "tls_key_file" is required in listener "tcp" unless tls_disable = true',
    );
  });

  it('asks TLS clients for a certificate unless told otherwise, and requires one with tls_require_and_verify_client_cert', () => {
    const tls = 'tls_cert_file = "c.pem"\n  tls_key_file = "k.pem"';
    const clientCerts = (body: string) =>
      parse(`storage "sqlite" { path = "s.db" }\nlistener "tcp" {\n  ${tls}\n  ${body}\n}\n`).listeners[0]!.tls?.clientCerts;
    assert.deepEqual(clientCerts(''), { mode: 'request' });
    assert.deepEqual(clientCerts('tls_client_ca_file = "ca.pem"'), { mode: 'request' }, 'the CA file only applies when certificates are required');
    assert.equal(clientCerts('tls_disable_client_certs = true'), undefined);
    assert.deepEqual(clientCerts('tls_require_and_verify_client_cert = true\n  tls_client_ca_file = "ca.pem"'), { mode: 'require', caFile: 'ca.pem' });
    assert.deepEqual(clientCerts('tls_require_and_verify_client_cert = true'), { mode: 'require', caFile: undefined });
    assert.deepEqual(
      toListenerOptions(parse(`storage "sqlite" { path = "s.db" }\nlistener "tcp" {\n  ${tls}\n  tls_require_and_verify_client_cert = true\n}\n`).listeners[0]!)
        .tls,
      {
        certFile: 'c.pem',
        keyFile: 'k.pem',
        clientCerts: { mode: 'require', caFile: undefined },
      },
    );
    assert.equal(
      messageOf(
        `storage "sqlite" { path = "s.db" }\nlistener "tcp" {\n  ${tls}\n  tls_disable_client_certs = true\n  tls_require_and_verify_client_cert = true\n}\n`,
      ),
      "secrets.hcl:5: 'tls_disable_client_certs' and 'tls_require_and_verify_client_cert' are mutually exclusive",
    );
    assert.equal(
      messageOf(`storage "sqlite" { path = "s.db" }\nlistener "tcp" {\n  ${tls}\n  tls_require_and_verify_client_cert = "yes please"\n}\n`),
      'secrets.hcl:5: "tls_require_and_verify_client_cert" must be a boolean',
    );
  });

  it('needs exactly one storage block and at least one listener', () => {
    const listener = 'listener "tcp" { tls_disable = true }\n';
    assert.equal(messageOf(listener), 'secrets.hcl:1: missing required block "storage"');
    assert.equal(messageOf('storage "sqlite" { path = "s.db" }\n'), 'secrets.hcl:1: missing required block "listener"');
    assert.equal(
      messageOf(`${listener}storage "sqlite" { path = "a" }\nstorage "sqlite" { path = "b" }\n`),
      'secrets.hcl:3: only one "storage" block is allowed',
    );
    assert.equal(
      messageOf(`${listener}storage "consul" { address = "x" }\n`),
      'secrets.hcl:2: unknown storage type "consul": expected one of sqlite, postgresql',
    );
  });

  it('storage "postgresql": connection_url, table, max_parallel, ha_enabled, with defaults', () => {
    const listener = 'listener "tcp" { tls_disable = true }\n';
    const full = parse(`${listener}storage "postgresql" {
  connection_url = "postgresql://cairn:pw@db.example.com:5432/cairn?sslmode=verify-full"
  table          = "vault.kv_store"
  max_parallel   = 32
  ha_enabled     = "true"
}\n`);
    assert.deepEqual(full.storage, {
      type: 'postgresql',
      connectionUrl: 'postgresql://cairn:pw@db.example.com:5432/cairn?sslmode=verify-full',
      table: 'vault.kv_store',
      maxParallel: 32,
      haEnabled: true,
    });
    const min = parse(`${listener}storage "postgresql" { connection_url = "postgres://db/cairn" }\n`);
    assert.deepEqual(min.storage, { type: 'postgresql', connectionUrl: 'postgres://db/cairn', table: 'cairn_kv', maxParallel: 10, haEnabled: false });
  });

  it('storage "postgresql": connection_url from env:// and file://', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-secrets-config-'));
    try {
      const file = join(dir, 'pg-url');
      writeFileSync(file, 'postgres://u:from-file@db/cairn\n');
      const text = (ref: string) => `listener "tcp" { tls_disable = true }\nstorage "postgresql" {\n  connection_url = "${ref}"\n}\n`;
      const fromEnv = parseSecretsServerConfig(text('env://PG_URL'), 'secrets.hcl', { PG_URL: 'postgres://u:from-env@db/cairn' });
      assert.equal(fromEnv.storage.type === 'postgresql' && fromEnv.storage.connectionUrl, 'postgres://u:from-env@db/cairn');
      const fromFile = parse(text(`file://${file}`));
      assert.equal(fromFile.storage.type === 'postgresql' && fromFile.storage.connectionUrl, 'postgres://u:from-file@db/cairn');
      assert.equal(messageOf(text('env://PG_URL')), 'secrets.hcl:3: "connection_url": environment variable "PG_URL" is not set or empty');
      assert.equal(messageOf(text(`file://${dir}/missing`)), `secrets.hcl:3: "connection_url": cannot read "${dir}/missing": ENOENT`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('storage "postgresql": bad values name file, line and key, never the URL', () => {
    const block = (body: string) => `listener "tcp" { tls_disable = true }\nstorage "postgresql" {\n${body}\n}\n`;
    const url = 'connection_url = "postgres://db/cairn"';
    const notPg = messageOf(block('  connection_url = "mysql://root:hunter2@db/x"'));
    assert.equal(notPg, 'secrets.hcl:3: "connection_url" must be a postgres:// or postgresql:// URL');
    assert.equal(messageOf(block('  table = "t"')), 'secrets.hcl:2: missing required key "connection_url" in storage "postgresql"');
    assert.match(messageOf(block(`  ${url}\n  table = "a-b"`)), /^secrets\.hcl:4: "table": PostgreSQL table "a-b" must be "name" or "schema\.name"/);
    assert.equal(messageOf(block(`  ${url}\n  max_parallel = 0`)), 'secrets.hcl:4: "max_parallel" must be at least 1');
    assert.equal(messageOf(block(`  ${url}\n  path = "x.db"`)), 'secrets.hcl:4: unknown key "path" in storage "postgresql"');
  });

  it('names file, line and key of unknown keys, wrong types and bad enums', () => {
    const base = 'storage "sqlite" { path = "s.db" }\n';
    assert.equal(messageOf(`${base}listener "tcp" {\n  tls_disable = true\n  adress = "x"\n}\n`), 'secrets.hcl:4: unknown key "adress" in listener "tcp"');
    assert.equal(messageOf(`${base}listener "tcp" {\n  tls_disable = "nope"\n}\n`), 'secrets.hcl:3: "tls_disable" must be a boolean');
    assert.equal(
      messageOf(`${base}listener "tcp" { tls_disable = true }\nlog_level = "verbose"\n`),
      'secrets.hcl:3: "log_level" must be one of trace, debug, info, warn, error (got "verbose")',
    );
    assert.equal(messageOf(`${base}listener "unix" { address = "/run/s.sock" }\n`), 'secrets.hcl:2: unknown listener type "unix": expected tcp');
    assert.equal(messageOf(`${base}listener "tcp" { tls_disable = true }\nmax_request_size = 5\n`), 'secrets.hcl:3: unknown key "max_request_size"');
  });

  it('names the key of a bad connection limit', () => {
    const base = 'storage "sqlite" { path = "s.db" }\nlistener "tcp" {\n  tls_disable = true\n';
    assert.match(messageOf(`${base}  http_read_header_timeout = "soon"\n}\n`), /^secrets\.hcl:4: "http_read_header_timeout" must be a duration/);
    assert.equal(messageOf(`${base}  http_idle_timeout = -5\n}\n`), 'secrets.hcl:4: "http_idle_timeout" must be at least 0s');
    assert.equal(messageOf(`${base}  max_connections = -1\n}\n`), 'secrets.hcl:4: "max_connections" must be at least 0');
    assert.equal(messageOf(`${base}  max_connections = "many"\n}\n`), 'secrets.hcl:4: "max_connections" must be an integer');
    assert.equal(
      messageOf(`${base}  http_read_timeout = "5s"\n  http_read_header_timeout = "20s"\n}\n`),
      'secrets.hcl:5: "http_read_header_timeout" (20s) must not exceed "http_read_timeout" (5s)',
    );
  });
});

describe('toListenerOptions', () => {
  it('maps require_request_header to the X-Secrets-Request header and keeps the rest', () => {
    const [tls, plain] = parse(FULL).listeners.map(toListenerOptions);
    assert.deepEqual(tls, {
      address: '0.0.0.0:8200',
      tls: { certFile: '/etc/cairn/tls.crt', keyFile: '/etc/cairn/tls.key', clientCerts: { mode: 'request' } },
      maxRequestBytes: 0,
      requiredHeader: undefined,
      ...DEFAULT_LIMITS,
      unauthenticatedMetricsAccess: true,
    });
    assert.equal(plain.headerTimeoutMs, 2000);
    assert.equal(plain.maxConnections, 100);
    assert.equal(plain.unauthenticatedMetricsAccess, false);
    assert.deepEqual(plain.requiredHeader, { name: 'X-Secrets-Request', value: 'true' });
    assert.equal(plain.maxRequestBytes, -1);
    assert.equal(DEFAULT_MAX_REQUEST_BYTES, 32 * 1024 * 1024);
  });
});
