/**
 * `cairn sched volume …` and `cairn sched plugin status` in-process against a real scheduler
 * agent and real hostpath CSI plugins (test/sched/csi.ts), through the SDK as a user runs them:
 * create and register from HCL and JSON specification files (and standard input), status
 * tables and details, snapshots create/list/delete, deregister (force), delete with
 * `-secret`, detach, plugin status, service refusals on one line (exit 1) and bad
 * specification files or flags (exit 2, naming the file, line and key).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HOSTPATH_PLUGIN_NAME } from '../src/kernel/csi/index.js';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { allocWith, startCsi, type CsiFixture } from './sched/csi.js';
import { ROOT } from './sched/helpers.js';

const WEB = `# the web team's data
id           = "web-data"
name         = "web"
type         = "csi"
plugin_id    = "hostpath"
capacity_min = "2MiB"
capacity_max = "1GiB"

capability {
  access_mode     = "single-node-writer"
  attachment_mode = "file-system"
}
capability {
  access_mode     = "single-node-reader-only"
  attachment_mode = "file-system"
}

mount_options {
  fs_type     = "ext4"
  mount_flags = ["noatime"]
}

secrets {
  password = "hunter2"
}

parameters {
  tier = "gold"
}
`;

describe('cairn sched volume and plugin against a real agent and hostpath plugin', () => {
  let f: CsiFixture;
  let scratch: ScratchDir;
  const file = (name: string, text: string) => scratch.file(name, text);
  const { cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: f.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });
  const json = async (...argv: string[]) => JSON.parse(await ok(...argv, '-json'));
  /** Runs as the management token and expects `code`; returns the run. */
  const fails = async (code: number, ...argv: string[]) => {
    const r = await cairn({ SCHED_TOKEN: ROOT }, argv);
    assert.equal(r.code, code, `cairn ${argv.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    return r;
  };

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'plain', capabilities: ['CREATE_DELETE_VOLUME'] }]);
    scratch = scratchDir('cairn-cli-volume-');
  });
  after(async () => {
    await f?.stop();
    scratch?.remove();
  });

  it('creates a volume from an HCL file and shows it', async () => {
    const out = await ok('sched', 'volume', 'create', file('web.hcl', WEB));
    const m = /^Created external volume (\S+) with ID web-data\n$/.exec(out);
    assert.ok(m, out);
    const v = await json('sched', 'volume', 'status', 'web-data');
    assert.deepEqual(
      [v.ID, v.Name, v.ExternalID, v.PluginID, v.RequestedCapacityMin, v.RequestedCapacityMax, v.Parameters],
      ['web-data', 'web', m[1], 'hostpath', 2 * 2 ** 20, 2 ** 30, { tier: 'gold' }],
    );
    assert.deepEqual(v.RequestedCapabilities, [
      { AccessMode: 'single-node-writer', AttachmentMode: 'file-system' },
      { AccessMode: 'single-node-reader-only', AttachmentMode: 'file-system' },
    ]);
    assert.deepEqual(v.MountOptions, { FsType: 'ext4', MountFlags: ['[REDACTED]'] });
    assert.ok(v.Capacity >= 2 * 2 ** 20);

    const detail = await ok('sched', 'volume', 'status', 'web-d');
    assert.match(detail, /^ID += web-data$/m);
    assert.match(detail, new RegExp(`^External ID += ${m[1]}$`, 'm'));
    assert.match(detail, new RegExp(`^Provider += ${HOSTPATH_PLUGIN_NAME.replace(/\./g, '\\.')}$`, 'm'));
    assert.match(detail, /^Capacity += 2\.0 MiB$/m);
    assert.match(detail, /^Schedulable += true$/m);
    assert.match(detail, /^Mount Options += fs_type: ext4 flags: \[REDACTED\]$/m);
    assert.match(detail, /\nTopologies\nTopology {2}Segments\n00 {8}topology\.cairn\.dev\/node=/);
    assert.match(detail, /\n\nAllocations\nNo allocations placed\n$/);
    assert.ok(!detail.includes('hunter2') && !detail.includes('Parameters'), detail);
    const verbose = await ok('sched', 'volume', 'status', '-verbose', 'web-data');
    assert.match(verbose, /^Parameters += tier=gold$/m);
    assert.match(verbose, /\nRequested Capabilities\nAccess Mode +Attachment Mode\nsingle-node-writer +file-system\nsingle-node-reader-only +file-system\n/);

    const again = await ok('sched', 'volume', 'create', file('web.hcl', WEB));
    assert.equal(again, out, 'a repeat reconciles the same volume');
  });

  it('registers a volume that exists in the plugin, from JSON and from standard input', async () => {
    const made = await f
      .client('hostpath')
      .createVolume({ name: 'legacy', volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }] });
    const spec = {
      id: 'legacy',
      type: 'csi',
      plugin_id: 'hostpath',
      external_id: made.volumeId,
      capability: [{ access_mode: 'single-node-writer', attachment_mode: 'file-system' }],
    };
    assert.equal(await ok('sched', 'volume', 'register', file('legacy.json', JSON.stringify(spec, null, 2))), 'Volume "legacy" registered\n');
    assert.equal((await json('sched', 'volume', 'status', 'legacy')).ExternalID, made.volumeId);

    const other = await f
      .client('hostpath')
      .createVolume({ name: 'piped', volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }] });
    const hcl = `id = "piped"\ntype = "csi"\nplugin_id = "hostpath"\nexternal_id = "${other.volumeId}"\naccess_mode = "single-node-writer"\nattachment_mode = "file-system"\n`;
    const r = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'volume', 'register', '-json', '-'], hcl);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([JSON.parse(r.stdout).ID, JSON.parse(r.stdout).ExternalID], ['piped', other.volumeId]);

    const ghost = await fails(
      1,
      'sched',
      'volume',
      'register',
      file(
        'ghost.hcl',
        `id = "ghost"\ntype = "csi"\nplugin_id = "hostpath"\nexternal_id = "no-such"\ncapability {\n  access_mode = "single-node-writer"\n  attachment_mode = "file-system"\n}\n`,
      ),
    );
    assert.match(ghost.stderr, /^Error: plugin "hostpath" could not validate volume "no-such": .* \(HTTP 404\)\n$/);
  });

  it('lists volumes as a table, narrowed by plugin and filter', async () => {
    await ok(
      'sched',
      'volume',
      'create',
      file(
        'plain.hcl',
        `id = "plain-1"\ntype = "csi"\nplugin_id = "plain"\ncapability {\n  access_mode = "single-node-writer"\n  attachment_mode = "file-system"\n}\n`,
      ),
    );
    const table = await ok('sched', 'volume', 'status');
    const lines = table.trimEnd().split('\n');
    assert.equal(lines[0], 'Container Storage Interface');
    assert.match(lines[1], /^ID +Name +Namespace +Plugin ID +Schedulable +Access Mode$/);
    assert.deepEqual(
      lines.slice(2).map((l) => l.split(/ +/)[0]),
      ['legacy', 'piped', 'plain-1', 'web-data'],
    );
    assert.match(table, /^web-data +web +default +hostpath +true +<none>$/m);
    const plain = await json('sched', 'volume', 'status', '-plugin-id=plain');
    assert.deepEqual(
      plain.map((v: { ID: string }) => v.ID),
      ['plain-1'],
    );
    const gold = await ok('sched', 'volume', 'status', '-filter', 'Parameters.tier == "gold"');
    assert.deepEqual(
      gold
        .trimEnd()
        .split('\n')
        .slice(2)
        .map((l) => l.split(/ +/)[0]),
      ['web-data'],
    );
    assert.match(
      await ok('sched', 'volume', 'status', '-verbose'),
      /^ID +Name +Namespace +Plugin ID +Schedulable +Access Mode +External ID +Provider +Readers +Writers$/m,
    );
    assert.equal(await ok('sched', 'volume', 'status', '-namespace=nowhere'), 'No CSI volumes\n');
    const none = await fails(1, 'sched', 'volume', 'status', 'zzz');
    assert.equal(none.stderr, 'Error: No volumes with prefix or ID "zzz" found\n');
    const several = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'volume', 'status', 'p']);
    assert.equal(several.code, 1);
    assert.match(several.stderr, /^Prefix matched multiple volumes\n\nID +Name +Namespace +Plugin ID\npiped .*\nplain-1 /);
  });

  it('creates, lists page by page and deletes snapshots', async () => {
    const made = await ok('sched', 'volume', 'snapshot', 'create', 'web-data', 'web-snap-1');
    const lines = made.trimEnd().split('\n');
    assert.match(lines[0], /^Snapshot ID +Volume ID +Size +Create Time +Ready\?$/);
    assert.match(lines[1], /^\S+ +web-data +\d+(\.\d)? (B|[KMG]iB) +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +false$/);
    const first = lines[1].split(/ +/)[0];
    const [second] = await json('sched', 'volume', 'snapshot', 'create', '-parameter', 'why=test', 'web-data');
    assert.match(second.Name, /^web-data-\d+$/, 'the default name');
    assert.deepEqual([second.SourceVolumeID, second.Parameters], ['web-data', { why: 'test' }]);

    const all = await json('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath');
    assert.deepEqual(new Set(all.Snapshots.map((s: { ID: string }) => s.ID)), new Set([first, second.ID]));
    assert.equal(all.NextToken, '');
    const page = await ok('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath', '-per-page=1', '-secret', 'password=hunter2');
    const hint = /-page-token=(\S+)\n$/.exec(page);
    assert.ok(hint, page);
    assert.match(
      page,
      /\n\nResults have been paginated\. To get the next page run:\n\ncairn sched volume snapshot list -plugin=hostpath -per-page=1 -page-token=/,
    );
    const rest = await json('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath', '-per-page=1', `-page-token=${hint[1]}`);
    assert.equal(rest.Snapshots.length, 1);

    assert.equal(await ok('sched', 'volume', 'snapshot', 'delete', '-secret=password=hunter2', 'hostpath', first), `Deleted snapshot ${first}.\n`);
    assert.deepEqual(
      (await json('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath')).Snapshots.map((s: { ID: string }) => s.ID),
      [second.ID],
    );
    await ok('sched', 'volume', 'snapshot', 'delete', 'hostpath', second.ID);
    assert.equal(await ok('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath'), 'No snapshots found\n');

    const noPlugin = await fails(2, 'sched', 'volume', 'snapshot', 'list');
    assert.match(noPlugin.stderr, /^Error: missing required flag -plugin/);
    const unsupported = await fails(1, 'sched', 'volume', 'snapshot', 'list', '-plugin=plain');
    assert.match(unsupported.stderr, /LIST_SNAPSHOTS.*\(HTTP 400\)\n$/);
    const noVolume = await fails(1, 'sched', 'volume', 'snapshot', 'create', 'nope', 's');
    assert.equal(noVolume.stderr, 'Error: no such volume "nope" (HTTP 400)\n');
  });

  it("detaches, deregisters and deletes, with the server's refusals on one line", async () => {
    assert.equal(await ok('sched', 'volume', 'detach', 'web-data', f.nodeId.slice(0, 6)), `Successfully detached volume "web-data" from node "${f.nodeId}"\n`);
    await allocWith(f, { data: { Source: 'legacy' } }, { job: 'job' });
    const inUse = await fails(1, 'sched', 'volume', 'deregister', 'legacy');
    assert.equal(inUse.stderr, 'Error: volume in use: legacy (HTTP 409)\n');
    const forced = await fails(1, 'sched', 'volume', 'deregister', '-force', 'legacy');
    assert.match(forced.stderr, /^Error: volume in use: legacy: allocation ".+" is not terminal \(HTTP 409\)\n$/);
    const claimed = await ok('sched', 'volume', 'status', 'legacy');
    assert.match(claimed, /\n\nAllocations\nID +Node ID +Job ID +Task Group +Desired +Status\n\S{8} +\S{8} +job +group +run +/);
    const detachInUse = await fails(1, 'sched', 'volume', 'detach', 'legacy', f.nodeId);
    assert.match(detachInUse.stderr, /claimed by an allocation on node .*\(HTTP 409\)\n$/);

    assert.equal(await ok('sched', 'volume', 'deregister', '-force', 'piped'), 'Volume "piped" deregistered\n');
    assert.equal((await fails(1, 'sched', 'volume', 'deregister', 'piped')).stderr, 'Error: volume not found: piped (HTTP 404)\n');

    const { ExternalID } = await json('sched', 'volume', 'status', 'web-data');
    assert.equal(
      await ok('sched', 'volume', 'delete', '-secret', 'password=hunter2', '-secret=extra=a=b', 'web-data'),
      'Successfully deleted volume "web-data"!\n',
    );
    const left = await f.client('hostpath').listVolumes({ maxEntries: 100 });
    assert.ok(!left.entries.some((e) => e.volume.volumeId === ExternalID), 'deleted in the plugin');
    assert.equal((await fails(1, 'sched', 'volume', 'status', 'web-data')).stderr, 'Error: No volumes with prefix or ID "web-data" found\n');
    const comma = await fails(2, 'sched', 'volume', 'delete', '-secret', 'a=b,c', 'plain-1');
    assert.match(comma.stderr, /^Error: -secret: invalid CSI secret "a": a value cannot hold ","/);
    const noEq = await fails(2, 'sched', 'volume', 'delete', '-secret', 'novalue', 'plain-1');
    assert.match(noEq.stderr, /^Error: invalid key\/value pair "novalue"/);
    assert.equal((await json('sched', 'volume', 'status', 'plain-1')).ID, 'plain-1', 'nothing was deleted');
    await fails(2, 'sched', 'volume', 'detach', 'plain-1');
  });

  it('shows plugins', async () => {
    const table = await ok('sched', 'plugin', 'status');
    assert.equal(
      table,
      `Container Storage Interface\nID        Provider${' '.repeat(HOSTPATH_PLUGIN_NAME.length - 8 + 2)}Controllers Healthy/Expected  Nodes Healthy/Expected\n` +
        `hostpath  ${HOSTPATH_PLUGIN_NAME}  1/1                           1/1\nplain     ${HOSTPATH_PLUGIN_NAME}  1/1                           1/1\n`,
    );
    const one = await ok('sched', 'plugin', 'status', 'host');
    assert.match(one, /^ID += hostpath\nProvider += /);
    assert.match(one, /^Controllers Healthy += 1$/m);
    assert.match(one, new RegExp(`\\n\\nControllers\\nNode ID +Healthy +Description\\n${f.nodeId.slice(0, 8)} +true +healthy\\n`));
    assert.match(
      one,
      new RegExp(`\\n\\nNodes\\nNode ID +Healthy +Description +Plugin Node ID\\n${f.nodeId.slice(0, 8)} +true +healthy +${f.csiNode('hostpath')}\\n$`),
    );
    const verbose = await ok('sched', 'plugin', 'status', '-verbose', 'plain');
    assert.match(verbose, new RegExp(`\\nControllers\\nNode ID +Healthy +Description +Capabilities\\n${f.nodeId} +true +healthy +CreateDelete\\n`));
    const p = await json('sched', 'plugin', 'status', 'hostpath');
    assert.equal(p.Controllers[f.nodeId].ControllerInfo.SupportsCreateDeleteSnapshot, true);
    assert.equal((await fails(1, 'sched', 'plugin', 'status', 'zzz')).stderr, 'Error: No plugins with prefix or ID "zzz" found\n');
  });

  it('refuses bad specification files with exit 2, naming the file, line and key', async () => {
    const base = 'id = "bad"\ntype = "csi"\nplugin_id = "hostpath"\n';
    const cap = 'capability {\n  access_mode = "single-node-writer"\n  attachment_mode = "file-system"\n}\n';
    const cases: [string, string, RegExp][] = [
      ['unknown-key.hcl', `${base}${cap}size = 3\n`, /^Error: .*unknown-key\.hcl:8: unknown key "size"\n$/],
      [
        'cap-key.hcl',
        `${base}capability {\n  acces_mode = "single-node-writer"\n  attachment_mode = "file-system"\n}\n`,
        /cap-key\.hcl:5: unknown key "acces_mode" in capability/,
      ],
      [
        'mode.hcl',
        `${base}capability {\n  access_mode = "single-node-wrter"\n  attachment_mode = "file-system"\n}\n`,
        /^Error: .*mode\.hcl:5: "access_mode" must be one of single-node-reader-only, .* \(got "single-node-wrter"\)\n$/,
      ],
      [
        'attach.hcl',
        `${base}capability {\n  access_mode = "single-node-writer"\n  attachment_mode = "nfs"\n}\n`,
        /attach\.hcl:6: "attachment_mode" must be file-system or|attach\.hcl:6: "attachment_mode" must be one of file-system, block-device \(got "nfs"\)/,
      ],
      ['size.hcl', `${base}${cap}capacity_min = "10 GooB"\n`, /^Error: .*size\.hcl:8: "capacity_min": invalid size "10 GooB": unknown unit "GooB"/],
      [
        'range.hcl',
        `${base}${cap}capacity_min = "2GiB"\ncapacity_max = "1GiB"\n`,
        /range\.hcl:9: "capacity_max" \(1073741824 bytes\) is less than "capacity_min" \(2147483648 bytes\)/,
      ],
      ['type.hcl', `id = "bad"\ntype = "host"\nplugin_id = "hostpath"\n${cap}`, /type\.hcl:2: "type" must be csi \(got "host"\)/],
      ['nocap.hcl', base, /nocap\.hcl:1: missing required block "capability"/],
      ['noplugin.hcl', `id = "bad"\ntype = "csi"\n${cap}`, /noplugin\.hcl:1: missing required key "plugin_id"/],
      ['params.hcl', `${base}${cap}parameters {\n  nested { a = "b" }\n}\n`, /params\.hcl:8: "parameters": the value of "nested" must be a string/],
      ['syntax.hcl', `${base}capability {\n`, /syntax\.hcl:5: syntax error/],
      [
        'bad.json',
        '{"id": "bad", "type": "csi", "plugin_id": "hostpath", "capability": [{"access_mode": "single-node-writer", "attachment_mode": "file-system"}], "capacity_max": true}',
        /bad\.json:1: "capacity_max": invalid size true/,
      ],
    ];
    for (const [name, text, want] of cases) {
      for (const verb of ['register', 'create']) {
        const r = await fails(2, 'sched', 'volume', verb, file(name, text));
        assert.match(r.stderr, want, `${verb} ${name}`);
        assert.equal(r.stdout, '');
      }
    }
    const missing = await fails(2, 'sched', 'volume', 'create', `${scratch.dir}/nope.hcl`);
    assert.match(missing.stderr, /^Error: -file: cannot read ".*nope\.hcl": ENOENT/);
    assert.equal(
      (await json('sched', 'volume', 'status')).some((v: { ID: string }) => v.ID === 'bad'),
      false,
      'nothing was registered',
    );
  });
});
