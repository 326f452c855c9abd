/**
 * `POST /v1/jobs/parse` (reference/sched-workloads.md "Jobs"): a realistic HCL job file
 * becomes the job JSON, with `Canonicalize` the register's defaults checked field by field;
 * mistakes in the file are 400s naming line and key; a parsed job registers as it is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const S = 1e9;

/** A job file as people write them for the reference. */
export const WEB_HCL = `# a web service with a CSI volume
job "web" {
  datacenters = ["dc1", "dc2"]
  type        = "service"
  priority    = 60

  constraint {
    attribute = "\${attr.kernel.name}"
    value     = "linux"
  }

  meta {
    team = "frontend"
    tier = 2
  }

  group "app" {
    count = 3

    restart {
      attempts = 5
      interval = "10m"
      delay    = "25s"
      mode     = "delay"
    }

    reschedule {
      delay          = "1m"
      delay_function = "constant"
      unlimited      = true
    }

    ephemeral_disk {
      size = 500
    }

    volume "data" {
      type            = "csi"
      source          = "shared"
      access_mode     = "multi-node-multi-writer"
      attachment_mode = "file-system"
    }

    task "server" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; sleep 300"]
      }

      env {
        PORT = "8080"
        MODE = "production"
      }

      resources {
        cpu    = 250
        memory = 128
      }

      volume_mount {
        volume      = "data"
        destination = "/srv/data"
        read_only   = false
      }

      kill_timeout = "20s"
      kill_signal  = "SIGTERM"

      logs {
        max_files     = 3
        max_file_size = 5
      }
    }

    task "sidecar" {
      driver = "exec"
      config {
        command = "/bin/sleep"
        args    = ["600"]
      }
    }
  }
}
`;

describe('scheduler job files', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });

  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it('parses a job file into the job JSON with what it sets only', async () => {
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: WEB_HCL });
    assert.equal(r.status, 200, r.text);
    const j = r.json;
    assert.deepEqual([j.ID, j.Name, j.Type, j.Priority, j.Datacenters], ['web', 'web', 'service', 60, ['dc1', 'dc2']]);
    assert.equal(j.Namespace, undefined, 'not set in the file');
    assert.deepEqual(j.Constraints, [{ LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: '=' }]);
    assert.deepEqual(j.Meta, { team: 'frontend', tier: '2' });
    const g = j.TaskGroups[0];
    assert.deepEqual(g.RestartPolicy, { Attempts: 5, Interval: 600 * S, Delay: 25 * S, Mode: 'delay' });
    assert.deepEqual(g.Tasks[0].Config, { command: '/bin/sh', args: ['-c', 'echo hello; sleep 300'] });
  });

  it('with Canonicalize applies the register defaults, field by field', async () => {
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: WEB_HCL, Canonicalize: true });
    assert.equal(r.status, 200, r.text);
    const j = r.json;
    assert.deepEqual(
      [j.ID, j.Name, j.Namespace, j.Region, j.Type, j.Priority, j.Datacenters, j.NodePool, j.AllAtOnce, j.Stop, j.Version],
      ['web', 'web', 'default', 'global', 'service', 60, ['dc1', 'dc2'], 'default', false, false, 0],
    );
    assert.equal(j.Update.MaxParallel, 1);
    assert.equal(j.Update.HealthyDeadline, 300 * S);
    const g = j.TaskGroups[0];
    assert.deepEqual([g.Name, g.Count], ['app', 3]);
    assert.deepEqual(g.RestartPolicy, { Attempts: 5, Interval: 600 * S, Delay: 25 * S, Mode: 'delay', RenderTemplates: false });
    assert.deepEqual(g.ReschedulePolicy, { Attempts: 0, Interval: 0, Delay: 60 * S, DelayFunction: 'constant', MaxDelay: 3600 * S, Unlimited: true });
    assert.deepEqual(g.EphemeralDisk, { Sticky: false, SizeMB: 500, Migrate: false });
    assert.deepEqual(g.Volumes, {
      data: {
        Name: 'data',
        Type: 'csi',
        Source: 'shared',
        ReadOnly: false,
        AccessMode: 'multi-node-multi-writer',
        AttachmentMode: 'file-system',
        MountOptions: null,
        PerAlloc: false,
      },
    });
    const [server, sidecar] = g.Tasks;
    assert.deepEqual([server.Name, server.Driver, server.User], ['server', 'raw_exec', '']);
    assert.deepEqual(server.Env, { PORT: '8080', MODE: 'production' });
    assert.deepEqual(server.Resources, { CPU: 250, Cores: 0, MemoryMB: 128, MemoryMaxMB: 0, DiskMB: null });
    assert.deepEqual(server.VolumeMounts, [{ Volume: 'data', Destination: '/srv/data', ReadOnly: false, PropagationMode: 'private' }]);
    assert.deepEqual([server.KillTimeout, server.KillSignal], [20 * S, 'SIGTERM']);
    assert.deepEqual(server.LogConfig, { MaxFiles: 3, MaxFileSizeMB: 5, Disabled: false });
    assert.deepEqual([sidecar.Name, sidecar.Driver, sidecar.KillTimeout, sidecar.KillSignal], ['sidecar', 'exec', 5 * S, 'SIGINT']);
    assert.deepEqual(sidecar.Resources, { CPU: 100, Cores: 0, MemoryMB: 300, MemoryMaxMB: 0, DiskMB: null });
    assert.deepEqual(sidecar.LogConfig, { MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false });
    assert.equal(sidecar.Env, null);
  });

  it('a parsed job registers, and reads back with the same defaults', async () => {
    const parsed = (await req('POST', '/v1/jobs/parse', { JobHCL: WEB_HCL })).json;
    const reg = await req('POST', '/v1/jobs', { Job: parsed });
    assert.equal(reg.status, 200, reg.text);
    const canonical = (await req('POST', '/v1/jobs/parse', { JobHCL: WEB_HCL, Canonicalize: true })).json;
    const stored = (await req('GET', '/v1/job/web')).json;
    assert.deepEqual(stored.TaskGroups, canonical.TaskGroups);
  });

  it('minimal job file: everything else defaulted', async () => {
    const hcl = 'job "web" { group "g" { task "t" { driver = "raw_exec" config { command = "/bin/sleep" args = ["300"] } } } }';
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: hcl, Canonicalize: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.TaskGroups[0].Count, r.json.TaskGroups[0].RestartPolicy.Attempts, r.json.Datacenters], [1, 2, ['*']]);
  });

  it('mistakes in the file are 400s naming line and key', async () => {
    const cases: [string, string | RegExp][] = [
      [
        'job "x" {\n  group "g" {\n    task "t" {\n      driver = "raw_exec"\n      comand = 1\n    }\n  }\n}\n',
        'input.hcl:5: unknown key "comand" in task "t"',
      ],
      ['job "x" {\n  group "g" {\n    count = "many"\n    task "t" { driver = "d" }\n  }\n}\n', 'input.hcl:3: "count" must be an integer'],
      [
        'job "x" {\n  group "g" {\n    restart {\n      delay = "15 seconds"\n    }\n    task "t" { driver = "d" }\n  }\n}\n',
        /^input\.hcl:4: "delay" must be a duration such as "30s" or "1h30m" \(time: /,
      ],
      ['job "x" {\n  group "g" {\n  }\n}\n', 'input.hcl:2: missing required block "task" in group "g"'],
      ['group "g" {}\n', /missing required block "job"/],
      ['job "x" {\n  group "g" {\n', /^input\.hcl:\d+: /],
    ];
    for (const [hcl, text] of cases) {
      const r = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
      assert.equal(r.status, 400, `${hcl}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    }
    assert.deepEqual([(await req('POST', '/v1/jobs/parse', { JobHCL: '' })).text], ['Job HCL must be specified']);
    const deep = `job "x" { meta ${'{ a = '.repeat(40)}1${' }'.repeat(40)} }`;
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: deep });
    assert.equal(r.status, 400);
    assert.match(r.text, /nesting deeper than 32 levels/);
    const checked = await req('POST', '/v1/jobs/parse', { JobHCL: 'job "x" { group "g" { task "t" { driver = "raw_exec" } } }', Canonicalize: true });
    assert.equal(checked.status, 400);
    assert.match(checked.text, /missing required "command" for the raw_exec driver/);
  });
});
