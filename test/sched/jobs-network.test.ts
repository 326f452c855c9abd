/**
 * A group's `network` block (issue 26 scope 1; reference/integration.md §1): the HCL file
 * becomes the reference's JSON (`TaskGroups[].Networks[]` with `ReservedPorts` for static
 * ports, `DynamicPorts` with `Value: 0`, `HostNetwork` `default`), that JSON registers and
 * reads back the same, and bad network input is a 400 naming the field that stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const HCL = `job "web" {
  group "web" {
    network {
      mode = "host"
      port "http" {}
      port "admin" {
        static = 8080
      }
      port "db" {
        to           = "5432"
        host_network = "private"
      }
    }
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec python3 -m http.server \${CAIRN_PORT_http}"]
      }
    }
  }
}
`;

const group = (networks: unknown) => ({
  ID: 'bad',
  TaskGroups: [{ Name: 'g', Networks: networks, Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' } }] }],
});

describe('scheduler: group networks in job files and the jobs API', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it('parses a network block into the reference JSON, which registers and reads back', async () => {
    const r = await call(a.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: HCL } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.TaskGroups[0].Networks, [
      {
        Mode: 'host',
        ReservedPorts: [{ Label: 'admin', Value: 8080, To: 0, HostNetwork: 'default' }],
        DynamicPorts: [
          { Label: 'http', Value: 0, To: 0, HostNetwork: 'default' },
          { Label: 'db', Value: 0, To: 5432, HostNetwork: 'private' },
        ],
      },
    ]);
    const put = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: r.json } });
    assert.equal(put.status, 200, put.text);
    const job = await call(a.url, 'GET', '/v1/job/web', { token: ROOT });
    const net = job.json.TaskGroups[0].Networks[0];
    assert.equal(net.Mode, 'host');
    assert.equal(net.DNS, null);
    assert.deepEqual(net.ReservedPorts, [{ Label: 'admin', Value: 8080, To: 0, HostNetwork: 'default' }]);
    assert.deepEqual(
      net.DynamicPorts.map((p: { Label: string }) => p.Label),
      ['http', 'db'],
    );
    // A group without a network has none (no key: jobs stored before networks compare equal).
    const plain = await call(a.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: HCL.replace(/ {4}network \{[\s\S]*?\n {4}\}\n/, '') } });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.json.TaskGroups[0].Networks, undefined);
  });

  it('refuses a mode other than host and a port "to" that is no number, at their lines', async () => {
    const bridge = await call(a.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: HCL.replace('mode = "host"', 'mode = "bridge"') } });
    assert.equal(bridge.status, 400);
    assert.match(bridge.text, /^input\.hcl:4: "mode": only "host" is supported, got "bridge"/);
    const to = await call(a.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: HCL.replace('to           = "5432"', 'to = "pg"') } });
    assert.equal(to.status, 400);
    assert.match(to.text, /^input\.hcl:10: "to" must be a port number, got "pg"/);
    const unknown = await call(a.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: HCL.replace('static = 8080', 'statik = 8080') } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /^input\.hcl:7: unknown key "statik"/);
  });

  it('answers bad network JSON with a 400 naming the field, and stores nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [[{ Mode: 'bridge' }], /Networks\[0\]\.Mode: only "host" is supported, got "bridge"/],
      [
        [{ ReservedPorts: [{ Label: 'http', Value: 70000 }] }],
        /Networks\[0\]\.ReservedPorts\[0\]\.Value: static port "http" is 70000: must be between 1 and 65535/,
      ],
      [
        [
          {
            ReservedPorts: [
              { Label: 'a', Value: 80 },
              { Label: 'b', Value: 80 },
            ],
          },
        ],
        /Networks\[0\]\.ReservedPorts\[1\]\.Value: static port 80 is given to both "a" and "b"/,
      ],
      [[{ DynamicPorts: [{ Label: 'http' }, { Label: 'http' }] }], /Networks\[0\]\.DynamicPorts\[1\]\.Label: port label "http" is used more than once/],
      [[{ DynamicPorts: [{ Label: 'my-port' }] }], /Networks\[0\]\.DynamicPorts\[0\]\.Label: port label "my-port" may hold only letters, digits and "_"/],
      [[{ DynamicPorts: [{ Label: '' }] }], /Networks\[0\]\.DynamicPorts\[0\]\.Label: a port needs a label/],
      [[{ DynamicPorts: [{ Label: 'x', To: -2 }] }], /Networks\[0\]\.DynamicPorts\[0\]\.To: port "x" mapped to -2/],
      [[{ DynamicPorts: [{ Label: 'x' }] }, { DynamicPorts: [{ Label: 'y' }] }], /Networks: only one network block is allowed, got 2/],
      [{ Mode: 'host' }, /cannot unmarshal object into Go struct field Job\.TaskGroups\.Networks of type \[\]\*api\.NetworkResource/],
      [
        [{ DynamicPorts: [{ Label: 'x', Value: 'a' }] }],
        /cannot unmarshal string into Go struct field Job\.TaskGroups\.Networks\.DynamicPorts\.Value of type int/,
      ],
    ];
    for (const [networks, want] of cases) {
      const r = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: group(networks) } });
      assert.equal(r.status, 400, `${JSON.stringify(networks)}: ${r.text}`);
      assert.match(r.text, want);
    }
    assert.equal((await call(a.url, 'GET', '/v1/job/bad', { token: ROOT })).status, 404);
  });
});
