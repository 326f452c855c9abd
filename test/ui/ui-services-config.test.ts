/**
 * `ui_services { … }` (kernel/config/ui-services.ts) in each service's configuration file,
 * and the gateway's `ui { enabled }`: the addresses as the UI's proxy gets them, absent by
 * default, and every mistake a ConfigError naming file, line and key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { parseMeshAgentConfig } from '../../src/services/mesh/config.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';
import { parseSecretsServerConfig } from '../../src/services/secrets/config.js';

const SECRETS = 'storage "sqlite" { path = "s.db" }\nlistener "tcp" { tls_disable = true }\n';
const GATEWAY = 'controller { auth_token = "t" }\nlistener "tcp" {\n  purpose = "api"\n  tls_disable = true\n}\nlistener "tcp" { purpose = "cluster" }\n';

/** The parse of each service's file with `extra` appended (`ui` turns its UI on), and its own section. */
const SERVICES = [
  { self: 'secrets', ui: 'ui = true', parse: (extra: string) => parseSecretsServerConfig(SECRETS + extra, 'secrets.hcl'), base: SECRETS },
  {
    self: 'mesh',
    ui: 'ui_config { enabled = true }',
    parse: (extra: string) => parseMeshAgentConfig('data_dir = "/tmp/x"\n' + extra, 'mesh.hcl'),
    base: 'data_dir = "/tmp/x"\n',
  },
  {
    self: 'sched',
    ui: 'ui { enabled = true }',
    parse: (extra: string) => parseSchedAgentConfig('data_dir = "/tmp/x"\n' + extra, 'sched.hcl'),
    base: 'data_dir = "/tmp/x"\n',
  },
  { self: 'gateway', ui: 'ui { enabled = true }', parse: (extra: string) => parseGatewayServerConfig(GATEWAY + extra, 'gateway.hcl'), base: GATEWAY },
] as const;

/** Asserts `fn` throws a ConfigError whose message is `<file>:<line>: …` and matches `message`, with `key`. */
function assertConfigError(fn: () => unknown, { file, line, key }: { file: string; line: number; key: string | undefined }, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.issues[0].line, line, err.message);
    assert.equal(err.issues[0].key, key, err.message);
    assert.ok(err.message.startsWith(`${file}:${line}: `), err.message);
    assert.match(err.message, message);
    return true;
  });
}

describe("ui_services in every service's configuration", () => {
  for (const s of SERVICES) {
    const file = `${s.self}.hcl`;
    const baseLines = s.base.split('\n').length - 1;
    const others = ['secrets', 'mesh', 'sched', 'gateway'].filter((o) => o !== s.self);

    it(`${s.self}: reads the others' addresses (host:port or http(s) URL); none by default`, () => {
      assert.equal(s.parse(`${s.ui}\n`).uiServices, undefined);
      const c = s.parse(
        `${s.ui}\nui_services {\n  ${others[0]} = "10.0.0.5:8500"\n  ${others[1]} = "https://Sched.example:4646/"\n  ${others[2]} = "http://[::1]:9200"\n}\n`,
      );
      assert.deepEqual(c.uiServices, { [others[0]]: '10.0.0.5:8500', [others[1]]: 'https://Sched.example:4646', [others[2]]: 'http://[::1]:9200' });
      // The gateway's ops listener, for the overview's traffic chart: any service may name it, the gateway too.
      assert.deepEqual(s.parse(`${s.ui}\nui_services {\n  gateway_ops = "127.0.0.1:9203"\n}\n`).uiServices, { gateway_ops: '127.0.0.1:9203' });
    });

    it(`${s.self}: errors name the file, line and key`, () => {
      // Lines: the base, then `ui`, then `ui_services {` and its keys.
      const at = baseLines + 2;
      assertConfigError(
        () => s.parse(`${s.ui}\nui_services {\n  ${others[0]} = "not an address"\n}\n`),
        { file: file, line: at + 1, key: others[0] },
        new RegExp(`"${others[0]}": "not an address" is not host:port`),
      );
      assertConfigError(
        () => s.parse(`${s.ui}\nui_services {\n  ${others[0]} = "h:1"\n  ${others[1]} = "h:70000"\n}\n`),
        { file: file, line: at + 2, key: others[1] },
        /port 70000 is not from 1 to 65535/,
      );
      assertConfigError(
        () => s.parse(`${s.ui}\nui_services {\n  ${others[0]} = "https://h:1/v1/path"\n}\n`),
        { file: file, line: at + 1, key: others[0] },
        /is not host:port or an http\(s\):\/\/host:port URL/,
      );
      assertConfigError(
        () => s.parse(`${s.ui}\nui_services {\n  ${s.self} = "h:1"\n}\n`),
        { file: file, line: at + 1, key: s.self },
        /its own section is always shown/,
      );
      assertConfigError(() => s.parse(`${s.ui}\nui_services {\n  vault = "h:1"\n}\n`), { file: file, line: at + 1, key: 'vault' }, /unknown key "vault"/);
      // The UI off: the block is refused at its own line, naming the key that turns it on.
      assertConfigError(
        () => s.parse(`ui_services {\n  ${others[0]} = "h:1"\n}\n`),
        { file: file, line: baseLines + 1, key: undefined },
        /"ui_services" needs the web UI on/,
      );
    });
  }

  it('gateway: ui { enabled } is off by default and needs a controller with an api listener', () => {
    assert.equal(parseGatewayServerConfig(GATEWAY, 'gateway.hcl').ui, undefined);
    assert.equal(parseGatewayServerConfig(`${GATEWAY}ui { enabled = true }\n`, 'gateway.hcl').ui, true);
    const workerOnly = 'worker { name = "w" }\nui {\n  enabled = true\n}\n';
    assertConfigError(
      () => parseGatewayServerConfig(workerOnly, 'gateway.hcl'),
      { file: 'gateway.hcl', line: 3, key: 'enabled' },
      /the web UI needs a "controller" block and a listener with purpose = "api"/,
    );
  });
});
