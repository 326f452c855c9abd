// Tests of config loading: HCL and JSON documents against a declared schema, typed
// values and defaults, and error messages naming file, line and key.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, cfg, loadConfigFile, parseConfig, type ConfigOf } from './index.js';

const schema = {
  storage: cfg.variants(
    { sqlite: { path: cfg.string({ required: true }) }, postgresql: { connection_url: cfg.string({ required: true }) } },
    { required: true },
  ),
  listener: cfg.labelled(
    {
      address: cfg.string({ default: '127.0.0.1:8200' }),
      tls_disable: cfg.bool(),
      max_request_size: cfg.int({ default: 0 }),
    },
    { labels: ['tcp'], repeated: true },
  ),
  controller: cfg.block({
    graceful_shutdown_wait_duration: cfg.duration({ default: 0 }),
    database: cfg.block({ url: cfg.string() }),
  }),
  worker: cfg.block({ initial_upstreams: cfg.list('string'), ports: cfg.list('int') }),
  log_level: cfg.string({ enum: ['debug', 'info'], default: 'info' }),
  ui: cfg.bool({ default: false }),
  extra: cfg.raw(),
};

const parse = (text: string, file = 'secrets.hcl') => parseConfig(text, file, schema);

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

const HCL = `# Cairn test config
storage "sqlite" {
  path = "/var/lib/cairn.db"
}

listener "tcp" { address = "127.0.0.1:0", tls_disable = true }
listener "tcp" {
  address          = "0.0.0.0:8200"
  max_request_size = 1024
}

controller {
  graceful_shutdown_wait_duration = "1m30s"
  database { url = "postgres://x" }
}
worker { initial_upstreams = ["a:9201", "b:9201"] }
log_level = "debug"
`;

describe('parseConfig (HCL)', () => {
  it('returns typed values with defaults, keeping repeated labelled blocks and one-line blocks', () => {
    const c = parse(HCL);
    assert.deepEqual(c.storage, { label: 'sqlite', body: { path: '/var/lib/cairn.db' } });
    assert.deepEqual(c.listener, [
      { label: 'tcp', body: { address: '127.0.0.1:0', tls_disable: true, max_request_size: 0 } },
      { label: 'tcp', body: { address: '0.0.0.0:8200', tls_disable: undefined, max_request_size: 1024 } },
    ]);
    assert.equal(c.controller?.graceful_shutdown_wait_duration, 90);
    assert.equal(c.controller?.database?.url, 'postgres://x');
    assert.deepEqual(c.worker?.initial_upstreams, ['a:9201', 'b:9201']);
    assert.equal(c.log_level, 'debug');
    assert.equal(c.ui, false);
    assert.equal(c.extra, undefined);
    // The inferred types are the declared ones.
    const label: 'tcp' = c.listener[0].label;
    const level: 'debug' | 'info' = c.log_level;
    const storagePath: string | undefined = c.storage.label === 'sqlite' ? c.storage.body.path : undefined;
    assert.deepEqual([label, level, storagePath], ['tcp', 'debug', '/var/lib/cairn.db']);
  });

  it('records where every block and key came from in the non-enumerable $at', () => {
    const c = parse(HCL);
    const second = c.listener[1].body;
    assert.equal(Object.keys(second).includes('$at'), false);
    assert.deepEqual(second.$at, { file: 'secrets.hcl', line: 7, where: 'listener "tcp"', keyLines: { address: 8, max_request_size: 9 } });
    assert.equal(c.listener[0].body.$at.keyLines.tls_disable, 6);
    assert.equal(c.controller?.database?.$at.line, 14);
    assert.equal(c.$at.keyLines.log_level, 17);
  });

  it('accepts weakly typed scalars as the reference does: "true" booleans, integer strings, Go durations', () => {
    const c = parse(
      'storage "sqlite" { path = "p" }\nlistener "tcp" {\n  tls_disable = "1"\n  max_request_size = "-1"\n}\ncontroller { graceful_shutdown_wait_duration = 10 }\n',
    );
    assert.equal(c.listener[0].body.tls_disable, true);
    assert.equal(c.listener[0].body.max_request_size, -1);
    assert.equal(c.controller?.graceful_shutdown_wait_duration, 10);
  });

  it('an unknown key names file, line, key and block', () => {
    const text = 'storage "sqlite" {\n  path = "p"\n}\n\nlistener "tcp" {\n  address = "127.0.0.1:0"\n  adress = "oops"\n}\n';
    const err = errorOf(() => parse(text));
    assert.equal(err.message, 'secrets.hcl:7: unknown key "adress" in listener "tcp"');
    assert.deepEqual(err.issues, [{ file: 'secrets.hcl', line: 7, key: 'adress', message: 'unknown key "adress" in listener "tcp"' }]);
    assert.equal(errorOf(() => parse('storage "sqlite" { path = "p" }\n\nbogus = 1\n')).message, 'secrets.hcl:3: unknown key "bogus"');
  });

  it('a wrong type names the line of the key', () => {
    const text = 'storage "sqlite" { path = "p" }\nlistener "tcp" {\n  tls_disable = "yes"\n}\n';
    assert.equal(errorOf(() => parse(text)).message, 'secrets.hcl:3: "tls_disable" must be a boolean');
    assert.equal(errorOf(() => parse('storage "sqlite" { path = 5 }')).message, 'secrets.hcl:1: "path" must be a string');
    assert.equal(errorOf(() => parse('storage "sqlite" { path = "p" }\n\nui = 3\n')).message, 'secrets.hcl:3: "ui" must be a boolean');
    const size = 'storage "sqlite" { path = "p" }\nlistener "tcp" { address = "a:1" }\nlistener "tcp" {\n  max_request_size = 1.5\n}\n';
    assert.equal(errorOf(() => parse(size)).message, 'secrets.hcl:4: "max_request_size" must be an integer');
    assert.equal(
      errorOf(() => parse('storage "sqlite" { path = "p" }\nworker {\n  ports = [1, "x"]\n}\n')).message,
      'secrets.hcl:3: "ports" must be a list of ints',
    );
    assert.equal(errorOf(() => parse('storage "sqlite" { path = "p" }\nui { }\n')).message, 'secrets.hcl:2: "ui" must be a boolean');
  });

  it('a missing required block is reported at line 1, a missing key at its block', () => {
    assert.equal(errorOf(() => parse('ui = true\n')).message, 'secrets.hcl:1: missing required block "storage"');
    assert.equal(errorOf(() => parse('ui = true\n\nstorage "sqlite" {\n}\n')).message, 'secrets.hcl:3: missing required key "path" in storage "sqlite"');
  });

  it('bad enum values, durations and labels', () => {
    const base = 'storage "sqlite" { path = "p" }\n';
    assert.equal(errorOf(() => parse(`${base}log_level = "verbose"\n`)).message, 'secrets.hcl:2: "log_level" must be one of debug, info (got "verbose")');
    assert.equal(
      errorOf(() => parse(`${base}controller {\n  graceful_shutdown_wait_duration = "soon"\n}\n`)).message,
      'secrets.hcl:3: "graceful_shutdown_wait_duration" must be a duration such as "10s" or a number of seconds (time: invalid duration "soon")',
    );
    assert.equal(errorOf(() => parse(`${base}listener "unix" { address = "x" }\n`)).message, 'secrets.hcl:2: unknown listener type "unix": expected tcp');
    assert.equal(
      errorOf(() => parse('storage "s3" { bucket = "b" }\n')).message,
      'secrets.hcl:1: unknown storage type "s3": expected one of sqlite, postgresql',
    );
    assert.equal(errorOf(() => parse('storage {\n  path = "p"\n}\n')).message, 'secrets.hcl:2: "storage" needs a label, as in storage "sqlite" { … }');
  });

  it('a single block given twice is an error at the second one', () => {
    const text = 'storage "sqlite" { path = "a" }\n\nstorage "sqlite" {\n  path = "b"\n}\n';
    assert.equal(errorOf(() => parse(text)).message, 'secrets.hcl:3: only one "storage" block is allowed');
  });

  it('collects every issue, sorted by line; the message is the first', () => {
    const err = errorOf(() => parse('ui = "no way"\nstorage "sqlite" {\n  path = "p"\n  size = 1\n}\nlog_level = "x"\n'));
    assert.deepEqual(
      err.issues.map((i) => [i.line, i.key]),
      [
        [1, 'ui'],
        [4, 'size'],
        [6, 'log_level'],
      ],
    );
    assert.equal(err.line, 1);
  });

  it('finds the right lines past comments, heredocs and strings holding braces', () => {
    const text = [
      '/* storage "sqlite" {',
      '   adress = 1 } */',
      'extra = <<EOT',
      'listener "tcp" {',
      '  adress = "x"',
      'EOT',
      'storage "sqlite" { path = "{ # not a comment" } // trailing',
      '# listener "tcp" { adress = 1 }',
      'listener "tcp" {',
      '  address = "a:1" # the one',
      '  adress = "x"',
      '}',
    ].join('\n');
    assert.equal(errorOf(() => parse(text)).message, 'secrets.hcl:11: unknown key "adress" in listener "tcp"');
  });

  it('reports HCL syntax errors with their line', () => {
    const err = errorOf(() => parse('storage "sqlite" {\n  path = "p"\n\n'));
    assert.match(err.message, /^secrets\.hcl:4: syntax error at column \d+: object expected closing RBRACE got: EOF$/);
  });
});

describe('parseConfig (JSON)', () => {
  const JSON_TEXT = `{
  "storage": { "sqlite": { "path": "/p.db" } },
  "listener": [
    { "tcp": { "address": "127.0.0.1:0", "tls_disable": true } },
    { "tcp": { "address": "127.0.0.1:1", "adress": "x" } }
  ],
  "ui": true
}`;

  it('accepts plain objects and lists of labelled blocks', () => {
    const c = parseConfig(JSON_TEXT.replace(', "adress": "x"', ''), 'secrets.json', schema);
    assert.deepEqual(c.storage, { label: 'sqlite', body: { path: '/p.db' } });
    assert.deepEqual(
      c.listener.map((l) => l.body.address),
      ['127.0.0.1:0', '127.0.0.1:1'],
    );
    assert.equal(c.ui, true);
    // `{…}` text is JSON whatever the file is called.
    assert.deepEqual(parseConfig('{"storage": {"sqlite": [{"path": "x"}]}}', 'conf.hcl', schema).storage, { label: 'sqlite', body: { path: 'x' } });
  });

  it('names the line of an unknown key and of a wrong type', () => {
    assert.equal(errorOf(() => parseConfig(JSON_TEXT, 'secrets.json', schema)).message, 'secrets.json:5: unknown key "adress" in listener "tcp"');
    const wrong = JSON_TEXT.replace('"ui": true', '"ui": "sometimes"');
    assert.deepEqual(
      errorOf(() => parseConfig(wrong, 'secrets.json', schema)).issues.map((i) => [i.line, i.key]),
      [
        [5, 'adress'],
        [7, 'ui'],
      ],
    );
    const only = '{\n  "storage": { "sqlite": { "path": "/p.db" } },\n  "ui": "sometimes"\n}';
    assert.equal(errorOf(() => parseConfig(only, 'secrets.json', schema)).message, 'secrets.json:3: "ui" must be a boolean');
  });

  it('reports JSON syntax errors with their line', () => {
    assert.match(errorOf(() => parseConfig('{\n  "ui": true,\n}', 'c.json', schema)).message, /^c\.json:3: syntax error at column 1: /);
    assert.match(errorOf(() => parseConfig('{\n  "ui": \n}', 'c.json', schema)).message, /^c\.json:3: syntax error/);
  });
});

describe('loadConfigFile', () => {
  it('reads the file and names it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-config-'));
    try {
      const file = join(dir, 'secrets.hcl');
      writeFileSync(file, HCL);
      const c: ConfigOf<typeof schema> = loadConfigFile(file, schema);
      assert.equal(c.listener.length, 2);
      writeFileSync(file, 'storage "sqlite" {\n  pth = "x"\n}\n');
      const typo = errorOf(() => loadConfigFile(file, schema));
      assert.equal(typo.message, `${file}:1: missing required key "path" in storage "sqlite"`);
      assert.deepEqual(
        typo.issues.map((i) => `${i.line} ${i.message}`),
        ['1 missing required key "path" in storage "sqlite"', '2 unknown key "pth" in storage "sqlite"'],
      );
      const missing = errorOf(() => loadConfigFile(join(dir, 'nope.hcl'), schema));
      assert.equal(missing.message, `${join(dir, 'nope.hcl')}: cannot read the configuration file: no such file`);
      assert.equal(missing.line, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
