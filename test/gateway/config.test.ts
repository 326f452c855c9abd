/**
 * The gateway config file (services/gateway/config.ts): defaults by purpose, the
 * `/health` rule of spec 000 "Gateway health endpoint", and errors naming file:line:key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { parseGatewayServerConfig, withPort } from '../../src/services/gateway/config.js';

const parse = (text: string, env: Record<string, string> = {}) => parseGatewayServerConfig(text, 'gw.hcl', env);
const errorOf = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('expected a ConfigError');
};

const CONTROLLER = `controller {
  name = "c1"
  graceful_shutdown_wait_duration = "10s"
}
listener "tcp" {
  purpose     = "api"
  tls_disable = true
}
listener "tcp" {
  purpose = "cluster"
}
listener "tcp" {
  purpose     = "ops"
  tls_disable = true
}
`;

describe('gateway controller state config', () => {
  const withController = (body: string) => CONTROLLER.replace('  graceful_shutdown_wait_duration = "10s"\n', body);

  it('takes database { url } as PostgreSQL shared state and data_dir as the SQLite location', () => {
    const c = parse(withController('  data_dir = "/var/lib/gw"\n  auth_token_time_to_stale = "30m"\n  database {\n    url = "env://PG"\n  }\n'), {
      PG: 'postgres://u:p@db:5432/cairn',
    });
    assert.deepEqual(c.controller!.database, { connectionUrl: 'postgres://u:p@db:5432/cairn', table: 'cairn_gateway', maxParallel: 10 });
    assert.equal(c.controller!.dataDir, '/var/lib/gw');
    assert.equal(c.controller!.authTokenStaleSeconds, 1800);
  });

  it('refuses a database without data_dir or state_key, and a non-postgres url, naming file, line and key', () => {
    assert.equal(
      errorOf(withController('  database {\n    url = "postgres://db/cairn"\n  }\n')),
      'gw.hcl:4: a controller with a "database" needs "data_dir" (for its state key file) or "state_key" (the key every controller sharing the database uses)',
    );
    assert.equal(
      errorOf(withController('  data_dir = "/d"\n  database {\n    url = "mysql://db/cairn"\n  }\n')),
      'gw.hcl:5: "url" must be a postgres:// or postgresql:// URL',
    );
    assert.match(errorOf(withController('  database {\n    table = "t"\n  }\n')), /^gw\.hcl:3: .*url/);
  });
});

describe('gateway config', () => {
  it('reads the reference controller example with default addresses per purpose', () => {
    const c = parse(CONTROLLER);
    assert.deepEqual(c.controller, {
      name: 'c1',
      description: undefined,
      gracefulShutdownWaitMs: 10_000,
      authToken: undefined,
      workerAuthToken: undefined,
      dataDir: undefined,
      stateKey: undefined,
      database: undefined,
      authTokenTtlSeconds: 7 * 24 * 3600,
      authTokenStaleSeconds: 24 * 3600,
    });
    assert.equal(c.worker, undefined);
    assert.deepEqual(
      c.listeners.map((l) => [l.purpose, l.address, l.tls]),
      [
        ['api', '127.0.0.1:9200', undefined],
        ['cluster', '127.0.0.1:9201', undefined],
        ['ops', '127.0.0.1:9203', undefined],
      ],
    );
    assert.equal(c.healthEnabled, true);
  });

  it('graceful_shutdown_wait_duration defaults to 0 and accepts seconds as a number', () => {
    assert.equal(parse(CONTROLLER.replace(/ {2}graceful.*\n/, '')).controller?.gracefulShutdownWaitMs, 0);
    assert.equal(parse(CONTROLLER.replace('"10s"', '3')).controller?.gracefulShutdownWaitMs, 3000);
  });

  it('worker: upstreams get port 9201; none given stays empty (server picks the default)', () => {
    const w = parse(`worker {\n  name = "w1"\n  initial_upstreams = ["10.0.0.10", "ctl:9300", "[::1]"]\n}\nlistener "tcp" {\n  purpose = "proxy"\n}\n`);
    assert.deepEqual(w.worker?.initialUpstreams, ['10.0.0.10:9201', 'ctl:9300', '[::1]:9201']);
    assert.equal(w.listeners[0].address, '127.0.0.1:9202');
    assert.equal(w.healthEnabled, false, 'no ops listener');
    assert.deepEqual(parse('worker {}\n').worker, { name: '', description: undefined, initialUpstreams: [], workerAuthToken: undefined, tags: {} });
  });

  it('worker tags: a string or a list of strings per key; anything else names the key', () => {
    const w = parse('worker {\n  tags {\n    type = ["prod", "db"]\n    region = "dc1"\n  }\n}\n');
    assert.deepEqual(w.worker?.tags, { type: ['prod', 'db'], region: ['dc1'] });
    assert.throws(() => parse('worker {\n  tags {\n    type = 3\n  }\n}\n'), /gw\.hcl:\d+: .*"tags": "type" must be a string or a list of strings/);
  });

  it('/health needs a controller with api and ops listeners, or a worker with an ops listener', () => {
    const noWait = CONTROLLER.replace(/ {2}graceful.*\n/, '');
    assert.equal(parse(noWait.replace(/listener "tcp" \{\n {2}purpose {5}= "ops"[^}]*\}\n/, '')).healthEnabled, false);
    assert.equal(parse(noWait.replace(/listener "tcp" \{\n {2}purpose {5}= "api"[^}]*\}\n/, '')).healthEnabled, false);
    assert.equal(parse(`${noWait.replace(/listener "tcp" \{\n {2}purpose {5}= "api"[^}]*\}\n/, '')}worker {}\n`).healthEnabled, true);
  });

  it('an address with a host only gets the purpose port; port 0 is kept', () => {
    const c = parse(
      CONTROLLER.replace('purpose = "cluster"', 'purpose = "cluster"\n  address = "0.0.0.0"').replace(
        'purpose     = "ops"',
        'purpose = "ops"\n  address = "127.0.0.1:0"',
      ),
    );
    assert.deepEqual(
      c.listeners.map((l) => l.address),
      ['127.0.0.1:9200', '0.0.0.0:9201', '127.0.0.1:0'],
    );
  });

  it('errors name file, line and key', () => {
    assert.equal(errorOf(CONTROLLER.replace('name = "c1"', 'nmae = "c1"')), 'gw.hcl:2: unknown key "nmae" in controller');
    assert.match(errorOf(CONTROLLER.replace('"10s"', '"10 seconds"')), /^gw\.hcl:3: "graceful_shutdown_wait_duration" must be a duration/);
    assert.match(errorOf(CONTROLLER.replace('"10s"', '"-5s"')), /^gw\.hcl:3: "graceful_shutdown_wait_duration" must be at least 0s/);
    assert.equal(
      errorOf(CONTROLLER.replace('purpose = "cluster"', 'purpose = "clutser"')),
      'gw.hcl:10: "purpose" must be one of api, cluster, proxy, ops (got "clutser")',
    );
    assert.equal(errorOf(CONTROLLER.replace('purpose = "cluster"', 'adress = "x"')), 'gw.hcl:9: missing required key "purpose" in listener "tcp"');
    assert.equal(errorOf(`${CONTROLLER}listener "unix" {\n  purpose = "ops"\n}\n`), 'gw.hcl:16: unknown listener type "unix": expected tcp');
    assert.equal(errorOf(`${CONTROLLER}worker {\n  initial_upstreams = "x"\n}\n`), 'gw.hcl:17: "initial_upstreams" must be a list of strings');
    assert.equal(errorOf(`${CONTROLLER}bogus = 1\n`), 'gw.hcl:16: unknown key "bogus"');
  });

  it('semantic errors: no controller/worker, controller without cluster listener, TLS files, bad address', () => {
    assert.equal(errorOf('listener "tcp" {\n  purpose = "ops"\n}\n'), 'gw.hcl:1: the file needs a "controller" block, a "worker" block, or both');
    assert.equal(errorOf('\ncontroller {}\n'), 'gw.hcl:2: a controller needs a listener "tcp" with purpose = "cluster"');
    assert.equal(
      errorOf(CONTROLLER.replace('purpose     = "api"\n  tls_disable = true', 'purpose     = "api"')),
      'gw.hcl:5: tls not disabled for listener at address "127.0.0.1:9200" with purpose "api" but no "tls_cert_file" supplied',
    );
    assert.equal(
      errorOf(CONTROLLER.replace('purpose = "cluster"', 'purpose = "cluster"\n  address = "127.0.0.1:99999"')),
      'gw.hcl:11: "address": invalid port in "127.0.0.1:99999"',
    );
    assert.equal(errorOf(`${CONTROLLER}listener "tcp" {\n  purpose = "cluster"\n}\n`), 'gw.hcl:17: only one listener with purpose = "cluster" is supported');
  });

  it('auth_token: the value itself, env://VAR or file://PATH; unset or empty is an error naming the line', () => {
    const withToken = (v: string) => CONTROLLER.replace('name = "c1"', `name = "c1"\n  auth_token = "${v}"`);
    assert.equal(parse(withToken('plain-token')).controller?.authToken, 'plain-token');
    assert.equal(parseGatewayServerConfig(withToken('env://GW_TOKEN'), 'gw.hcl', { GW_TOKEN: 'from-env' }).controller?.authToken, 'from-env');
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-gwcfg-')), 'token');
    writeFileSync(file, 'from-file\n');
    assert.equal(parse(withToken(`file://${file}`)).controller?.authToken, 'from-file');
    assert.equal(errorOf(withToken('env://GW_TOKEN')), 'gw.hcl:3: "auth_token": environment variable "GW_TOKEN" is not set or empty');
    assert.equal(errorOf(withToken('file:///nonexistent/token')), 'gw.hcl:3: "auth_token": cannot read "/nonexistent/token": ENOENT');
    assert.equal(errorOf(withToken('  ')), 'gw.hcl:3: "auth_token": must not be empty');
  });

  it("worker_auth_token: on the controller and the worker; a combined process shares the controller's", () => {
    const c = parseGatewayServerConfig(CONTROLLER.replace('name = "c1"', 'name = "c1"\n  worker_auth_token = "env://WK"'), 'gw.hcl', { WK: 'k1' });
    assert.equal(c.controller?.workerAuthToken, 'k1');
    const combined = parseGatewayServerConfig(`${CONTROLLER.replace('name = "c1"', 'name = "c1"\n  worker_auth_token = "k1"')}worker {}\n`, 'gw.hcl');
    assert.equal(combined.worker?.workerAuthToken, 'k1');
    assert.equal(parse('worker {\n  worker_auth_token = "k2"\n}\n').worker?.workerAuthToken, 'k2');
    assert.equal(
      errorOf('worker {\n  worker_auth_token = "env://NOPE"\n}\n'),
      'gw.hcl:2: "worker_auth_token": environment variable "NOPE" is not set or empty',
    );
  });

  it('proxy listener: plain TCP by default, TLS with both files, an error with one', () => {
    const proxy = (body: string) => parse(`worker {}\nlistener "tcp" {\n  purpose = "proxy"\n${body}}\n`);
    assert.equal(proxy('').listeners[0].tls, undefined);
    assert.deepEqual(proxy('  tls_cert_file = "c.pem"\n  tls_key_file = "k.pem"\n').listeners[0].tls, { certFile: 'c.pem', keyFile: 'k.pem' });
    assert.equal(
      errorOf(`worker {}\nlistener "tcp" {\n  purpose = "proxy"\n  tls_cert_file = "c.pem"\n}\n`),
      'gw.hcl:4: a TLS proxy listener needs both "tls_cert_file" and "tls_key_file"',
    );
  });

  it('graceful_shutdown_wait_duration needs the api and ops listeners that serve /health', () => {
    const noOps = CONTROLLER.replace(/listener "tcp" \{\n {2}purpose {5}= "ops"[^}]*\}\n/, '');
    assert.equal(
      errorOf(noOps),
      'gw.hcl:3: "graceful_shutdown_wait_duration" needs a listener with purpose = "ops": the controller\'s /health (api and ops listeners) is what the wait is for',
    );
    assert.match(errorOf(CONTROLLER.replace(/listener "tcp" \{\n {2}purpose {5}= "api"[^}]*\}\n/, '')), /^gw\.hcl:3: .*purpose = "api"/);
    assert.equal(parse(noOps.replace(/ {2}graceful.*\n/, '')).healthEnabled, false, 'without the wait, no ops listener is fine');
  });

  it('withPort', () => {
    assert.equal(withPort('h', 1), 'h:1');
    assert.equal(withPort('h:0', 1), 'h:0');
    assert.equal(withPort('::1', 9), '[::1]:9');
    assert.equal(withPort('[::1]:8', 9), '[::1]:8');
    assert.throws(() => withPort('h:x', 1), /invalid port/);
  });
});
