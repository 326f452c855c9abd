/**
 * `cairn mesh services register|deregister` and `cairn mesh catalog services|nodes`
 * in-process against a real discovery agent on loopback (through the SDK, as a user runs
 * them): registration from flags and from HCL / JSON files (snake_case keys, a check block,
 * flags filling in), the reference's texts and tables, the refusals' texts and exit codes,
 * and deregistration by -id and by file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from './processes.js';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, startAgent, type TestAgent } from './mesh/helpers.js';

const ROOT = '5d1f0b2e-7a64-4c1b-9e3a-0f8c2d4b6a10';

describe('cairn mesh services / catalog against a real discovery agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  const { cairn, ok } = cliRunner({ env: () => ({ MESH_HTTP_ADDR: a.url }), rootEnv: () => ({ MESH_HTTP_TOKEN: ROOT }) });
  const asRoot = (argv: string[]) => cairn({ MESH_HTTP_TOKEN: ROOT }, argv);
  /** Waits until the catalog lists exactly `names` (the agent syncs its services every 200 ms). */
  const catalogHas = (names: string[]) =>
    until(`the catalog lists ${names.join(', ')}`, 5000, async () => {
      const listed = Object.keys((await call(a.url, 'GET', '/v1/catalog/services', { token: ROOT })).json).sort();
      return JSON.stringify(listed) === JSON.stringify([...names].sort()) ? true : undefined;
    });

  before(async () => {
    a = await startAgent({ initialManagement: ROOT }, {}, { syncIntervalMs: 200 });
    scratch = scratchDir('cairn-cli-mesh-catalog-');
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it('register from flags and from HCL / JSON files; the agent holds what they said', async () => {
    assert.equal(
      await ok(
        'mesh',
        'services',
        'register',
        '-name=web',
        '-id=web-1',
        '-address=10.0.0.5',
        '-port=8080',
        '-tag=v1',
        '-tag=primary',
        '-meta=team=a',
        '-meta=tier=front',
      ),
      'Registered service: web\n',
    );
    const hcl = scratch.file(
      'api.hcl',
      'service {\n  name = "api"\n  port = 9000\n  tags = ["v2"]\n  enable_tag_override = true\n  meta {\n    owner = "ops"\n  }\n  check {\n    id  = "api-ttl"\n    ttl = "60s"\n  }\n}\n',
    );
    assert.equal(await ok('mesh', 'services', 'register', '-address=10.0.0.6', '-tag=extra', hcl), 'Registered service: api\n');
    const json = scratch.file(
      'db.json',
      JSON.stringify({
        services: [
          { Name: 'db', ID: 'db-1', Port: 5432 },
          { name: 'cache', port: 6379 },
        ],
      }),
    );
    assert.equal(await ok('mesh', 'services', 'register', json), 'Registered service: db\nRegistered service: cache\n');

    const local = (await call(a.url, 'GET', '/v1/agent/services', { token: ROOT })).json;
    assert.deepEqual(Object.keys(local).sort(), ['api', 'cache', 'db-1', 'web-1']);
    assert.deepEqual(
      [local['web-1'].Address, local['web-1'].Port, local['web-1'].Tags, local['web-1'].Meta],
      ['10.0.0.5', 8080, ['v1', 'primary'], { team: 'a', tier: 'front' }],
    );
    assert.deepEqual(
      [local.api.Address, local.api.Port, local.api.Tags, local.api.Meta, local.api.EnableTagOverride],
      ['10.0.0.6', 9000, ['v2', 'extra'], { owner: 'ops' }, true],
      'the flags fill in what the file leaves out',
    );
    const checks = (await call(a.url, 'GET', '/v1/agent/checks', { token: ROOT })).json;
    assert.equal(checks['api-ttl'].ServiceID, 'api', "the check block became the service's check");
  });

  it("catalog services prints the names, -tags the tags, -node one node's; catalog nodes the table", async () => {
    await catalogHas(['api', 'cache', 'consul', 'db', 'web']);
    assert.equal(await ok('mesh', 'catalog', 'services'), 'api\ncache\nconsul\ndb\nweb\n');
    assert.equal(await ok('mesh', 'catalog', 'services', '-tags'), 'api         extra,v2\ncache       \nconsul      \ndb          \nweb         primary,v1\n');
    assert.equal(await ok('mesh', 'catalog', 'services', '-node=test'), 'api\ncache\nconsul\ndb\nweb\n');
    const none = await asRoot(['mesh', 'catalog', 'services', '-node=nowhere']);
    assert.deepEqual([none.code, none.stdout, none.stderr], [0, '', 'No services match the given query - try expanding your search.\n']);

    const nodeId = (await call(a.url, 'GET', '/v1/catalog/node/test', { token: ROOT })).json.Node.ID as string;
    const addr = (await call(a.url, 'GET', '/v1/catalog/node/test', { token: ROOT })).json.Node.Address as string;
    const short = nodeId.split('-')[0];
    const expected = (id: string) => {
      const w = Math.max(2, id.length);
      const aw = Math.max(7, addr.length);
      return `Node  ${'ID'.padEnd(w)}  ${'Address'.padEnd(aw)}  DC\ntest  ${id.padEnd(w)}  ${addr.padEnd(aw)}  dc1\n`;
    };
    assert.equal(await ok('mesh', 'catalog', 'nodes'), expected(short));
    assert.equal(await ok('mesh', 'catalog', 'nodes', '-service=web'), expected(short));
    assert.match(
      await ok('mesh', 'catalog', 'nodes', '-detailed'),
      new RegExp(`^Node +ID +Address +DC +TaggedAddresses +Meta\\ntest +${nodeId} +\\S+ +dc1 +\\S`),
    );
    const missing = await asRoot(['mesh', 'catalog', 'nodes', '-service=nothing']);
    assert.deepEqual([missing.code, missing.stderr], [0, 'No nodes match the given query - try expanding your search.\n']);
    const json = JSON.parse(await ok('mesh', 'catalog', 'nodes', '-format=json'));
    assert.equal(json[0].Node, 'test');
  });

  it('refusals: no name nor file, both, a bad file, a token without service:write', async () => {
    const none = await asRoot(['mesh', 'services', 'register']);
    assert.deepEqual([none.code, none.stderr], [1, 'Service registration requires at least one argument or flags.\n']);
    const both = await asRoot(['mesh', 'services', 'register', '-name=x', scratch.file('x.hcl', 'service { name = "x" }')]);
    assert.deepEqual([both.code, both.stderr], [1, 'Service registration requires arguments or -id, not both.\n']);
    const bad = await asRoot(['mesh', 'services', 'register', scratch.file('bad.hcl', 'service {')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^Error: .*bad\.hcl/);
    const empty = await asRoot(['mesh', 'services', 'register', scratch.file('empty.hcl', 'other = 1')]);
    assert.deepEqual([empty.code, empty.stderr.includes('has no service definition')], [1, true]);
    const denied = await cairn({}, ['mesh', 'services', 'register', '-name=web']);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^Error registering service "web": Permission denied: .*service:write/);
    const noId = await asRoot(['mesh', 'services', 'deregister']);
    assert.deepEqual([noId.code, noId.stderr], [1, 'Service deregistration requires at least one argument or -id.\n']);
    const unknown = await asRoot(['mesh', 'services', 'deregister', '-id=nothing']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error deregistering service "nothing": Unknown service ID "nothing"/);
  });

  it('deregister by -id and by file', async () => {
    assert.equal(await ok('mesh', 'services', 'deregister', '-id=web-1'), 'Deregistered service: web-1\n');
    assert.equal(
      await ok('mesh', 'services', 'deregister', scratch.file('db-again.json', JSON.stringify({ services: [{ Name: 'db', ID: 'db-1' }, { name: 'cache' }] }))),
      'Deregistered service: db-1\nDeregistered service: cache\n',
    );
    assert.equal(await ok('mesh', 'services', 'deregister', `${scratch.dir}/api.hcl`), 'Deregistered service: api\n');
    assert.deepEqual((await call(a.url, 'GET', '/v1/agent/services', { token: ROOT })).json, {});
    await catalogHas(['consul']);
    assert.equal(await ok('mesh', 'catalog', 'services'), 'consul\n');
  });
});
