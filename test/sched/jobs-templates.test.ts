/**
 * A task's `template` blocks (reference/integration.md §3) through a real scheduler agent:
 * the job file's block becomes the reference's `Templates` JSON, mistakes are 400s naming
 * the line and key (a syntax error in `data` with the template's own line), the job API
 * applies the reference's defaults and refuses a bad template before anything is stored,
 * and a registered job reads back with its templates unchanged. Nothing renders yet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const S = 1e9;

const job = (templates: string) => `job "tpl" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
${templates}
    }
  }
}
`;

const FULL = job(`      template {
        data = <<EOT
{{ with secret "secret/data/web" }}DB_PASSWORD={{ .Data.data.password }}{{ end }}
{{ range service "db" }}DB={{ .Address }}:{{ .Port }}{{ end }}
EOT
        destination   = "secrets/db.env"
        env           = true
        change_mode   = "script"
        change_script {
          command       = "/usr/local/bin/reload"
          args          = ["-q"]
          timeout       = "10s"
          fail_on_error = true
        }
        perms = "600"
        splay = "30s"
        wait {
          min = "2s"
          max = "10s"
        }
        left_delimiter       = "{{"
        right_delimiter      = "}}"
        error_on_missing_key = true
      }
      template {
        data          = "[[ key \\"app/config\\" ]]"
        destination   = "local/app.conf"
        change_mode   = "signal"
        change_signal = "sighup"
        left_delimiter  = "[["
        right_delimiter = "]]"
      }`);

describe('job template blocks', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });

  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it('parses the block into the reference JSON, what the file sets only', async () => {
    const r = await req('POST', '/v1/jobs/parse', { JobHCL: FULL });
    assert.equal(r.status, 200, r.text);
    const [env, conf] = r.json.TaskGroups[0].Tasks[0].Templates;
    assert.deepEqual(env, {
      DestPath: 'secrets/db.env',
      EmbeddedTmpl:
        '{{ with secret "secret/data/web" }}DB_PASSWORD={{ .Data.data.password }}{{ end }}\n{{ range service "db" }}DB={{ .Address }}:{{ .Port }}{{ end }}\n',
      ChangeMode: 'script',
      ChangeScript: { Command: '/usr/local/bin/reload', Args: ['-q'], Timeout: 10 * S, FailOnError: true },
      Splay: 30 * S,
      Perms: '600',
      LeftDelim: '{{',
      RightDelim: '}}',
      Envvars: true,
      ErrMissingKey: true,
      Wait: { Min: 2 * S, Max: 10 * S },
    });
    assert.deepEqual(conf, {
      DestPath: 'local/app.conf',
      EmbeddedTmpl: '[[ key "app/config" ]]',
      ChangeMode: 'signal',
      ChangeSignal: 'sighup',
      LeftDelim: '[[',
      RightDelim: ']]',
    });
  });

  it('registers with the reference defaults and reads back unchanged', async () => {
    const parsed = (await req('POST', '/v1/jobs/parse', { JobHCL: FULL })).json;
    const reg = await req('POST', '/v1/jobs', { Job: parsed });
    assert.equal(reg.status, 200, reg.text);
    const stored = (await req('GET', '/v1/job/tpl')).json;
    const [env, conf] = stored.TaskGroups[0].Tasks[0].Templates;
    assert.deepEqual(conf, {
      SourcePath: '',
      DestPath: 'local/app.conf',
      EmbeddedTmpl: '[[ key "app/config" ]]',
      ChangeMode: 'signal',
      ChangeSignal: 'SIGHUP',
      ChangeScript: null,
      Splay: 5 * S,
      Perms: '0644',
      Uid: null,
      Gid: null,
      LeftDelim: '[[',
      RightDelim: ']]',
      Envvars: false,
      ErrMissingKey: false,
      Wait: null,
      Once: false,
      VaultGrace: 0,
    });
    assert.deepEqual(
      [env.ChangeMode, env.Perms, env.Splay, env.Wait, env.ChangeScript.Timeout],
      ['script', '600', 30 * S, { Min: 2 * S, Max: 10 * S }, 10 * S],
    );
    const canonical = (await req('POST', '/v1/jobs/parse', { JobHCL: FULL, Canonicalize: true })).json;
    assert.deepEqual(stored.TaskGroups[0].Tasks[0].Templates, canonical.TaskGroups[0].Tasks[0].Templates);
    // The same job again is no change: templates compare equal after storing.
    const plan = await req('POST', '/v1/job/tpl/plan', { Job: parsed, Diff: false });
    assert.equal(plan.status, 200, plan.text);
    const again = await req('POST', '/v1/jobs', { Job: parsed });
    assert.equal(again.status, 200, again.text);
    assert.equal((await req('GET', '/v1/job/tpl')).json.Version, stored.Version, 'an unchanged job keeps its version');
  });

  it('the JSON API takes the reference field names in any case and Go durations', async () => {
    const body = {
      Job: {
        ID: 'tpl-json',
        TaskGroups: [
          {
            Name: 'g',
            Tasks: [
              {
                Name: 't',
                Driver: 'raw_exec',
                Config: { command: '/bin/sleep', args: ['300'] },
                Templates: [{ embeddedtmpl: '{{ keyOrDefault "a" "b" }}', destpath: 'local/a', Splay: '1s', Wait: { Min: '1s' }, Uid: 1000 }],
              },
            ],
          },
        ],
      },
    };
    const r = await req('POST', '/v1/jobs', body);
    assert.equal(r.status, 200, r.text);
    const t = (await req('GET', '/v1/job/tpl-json')).json.TaskGroups[0].Tasks[0].Templates[0];
    assert.deepEqual(
      [t.EmbeddedTmpl, t.DestPath, t.Splay, t.Wait, t.Uid, t.Gid, t.ChangeMode],
      ['{{ keyOrDefault "a" "b" }}', 'local/a', S, { Min: S, Max: null }, 1000, null, 'restart'],
    );
  });

  it('mistakes in the block are 400s naming line and key', async () => {
    const cases: [string, string | RegExp][] = [
      [
        job('      template {\n        destination = "local/x"\n        change_mode = "signal"\n        data = "x"\n      }'),
        'input.hcl:9: template "local/x": change_signal: Must specify signal value when change mode is signal',
      ],
      [
        job('      template {\n        destination = "local/x"\n        data = <<EOT\nok\n{{ secert "a" }}\nEOT\n      }'),
        'input.hcl:11: template "local/x": data: template: local/x:2: function "secert" not defined',
      ],
      [job('      template {\n        data = "x"\n      }'), 'input.hcl:9: template: destination: Must specify a destination for the template'],
      [
        job('      template {\n        data = "x"\n        destination = "../../etc/passwd"\n      }'),
        'input.hcl:11: template "../../etc/passwd": destination: destination escapes the task directory',
      ],
      [
        job('      template {\n        data = "x"\n        source = "local/x.tpl"\n        destination = "local/x"\n      }'),
        'input.hcl:11: template "local/x": source: Cannot specify both source and data: give one',
      ],
      [
        job('      template {\n        destination = "local/x"\n      }'),
        'input.hcl:9: template "local/x": data: Must specify a source path or have an embedded template',
      ],
      [
        job(
          '      template {\n        data = "x"\n        destination = "local/x"\n        change_mode = "signal"\n        change_signal = "SIGHUP"\n        env = true\n      }',
        ),
        'input.hcl:14: template "local/x": env: cannot use signals with env var templates',
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        change_mode = "reload"\n      }'),
        'input.hcl:12: template "local/x": change_mode: Invalid change mode. Must be one of the following: noop, signal, script, restart',
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        change_mode = "script"\n      }'),
        /^input\.hcl:9: template "local\/x": change_script: must specify a change_script command/,
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        perms = "rw-"\n      }'),
        'input.hcl:12: template "local/x": perms: Failed to parse "rw-" as octal',
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        splay = "soon"\n      }'),
        /^input\.hcl:12: "splay" must be a duration such as "30s"/,
      ],
      [
        job(
          '      template {\n        data = "x"\n        destination = "local/x"\n        wait {\n          min = "10s"\n          max = "1s"\n        }\n      }',
        ),
        /^input\.hcl:12: template "local\/x": wait: wait min 10000000000ns must be less than or equal to wait max 1000000000ns$/,
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        destnation = "y"\n      }'),
        'input.hcl:12: unknown key "destnation" in template',
      ],
      [
        job('      template {\n        data = "x"\n        destination = "local/x"\n        change_signal = "SIGNOPE"\n      }'),
        'input.hcl:12: template "local/x": change_signal: change_signal "SIGNOPE" is not a known signal',
      ],
    ];
    for (const [hcl, text] of cases) {
      const r = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
      assert.equal(r.status, 400, `${hcl}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    }
  });

  it('the job API refuses a bad template with a 400 naming it and the line, and stores nothing', async () => {
    const body = (templates: unknown[]) => ({
      Job: { ID: 'tpl-bad', TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sleep' }, Templates: templates }] }] },
    });
    const r = await req('POST', '/v1/jobs', body([{ EmbeddedTmpl: 'a\nb\n{{ if .x }}', DestPath: 'local/a.conf' }]));
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.text,
      '1 error occurred:\n\t* Task group g validation failed: Task t validation failed: Template 1 (local/a.conf): template: local/a.conf:3: unexpected EOF\n\n',
    );
    const bounded = await req('POST', '/v1/jobs', body([{ EmbeddedTmpl: `${'{{ if 1 }}'.repeat(100)}${'{{ end }}'.repeat(100)}`, DestPath: 'local/deep' }]));
    assert.equal(bounded.status, 400, bounded.text);
    assert.match(bounded.text, /Template 1 \(local\/deep\): template: local\/deep:1: template nests too deep: more than 64 levels/);
    const kinds = await req('POST', '/v1/jobs', body([{ EmbeddedTmpl: 'x', DestPath: 'local/a', Envvars: 'yes' }]));
    assert.equal(kinds.status, 400);
    assert.equal(kinds.text, 'json: cannot unmarshal string into Go struct field Job.TaskGroups.Tasks.Templates.Envvars of type bool');
    const escape = await req('POST', '/v1/jobs', body([{ EmbeddedTmpl: 'x', DestPath: '${CAIRN_SECRETS_DIR}/../../../x' }]));
    assert.equal(escape.status, 400);
    assert.match(escape.text, /Template 1 \(\$\{CAIRN_SECRETS_DIR\}\/\.\.\/\.\.\/\.\.\/x\): destination escapes the task directory/);
    const inside = await req('POST', '/v1/jobs', body([{ EmbeddedTmpl: 'x', DestPath: '${CAIRN_SECRETS_DIR}/x' }]));
    assert.equal(inside.status, 200, inside.text);
    const stored = await req('GET', '/v1/job/tpl-bad');
    assert.equal(stored.json.TaskGroups[0].Tasks[0].Templates[0].DestPath, '${CAIRN_SECRETS_DIR}/x', 'only the valid submission was stored');
  });
});
