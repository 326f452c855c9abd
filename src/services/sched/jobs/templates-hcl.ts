/**
 * The `template` blocks of a task in an HCL job file (reference/integration.md §3) → the job
 * API's `Templates` JSON (jobs/templates.ts), for hcl.ts:
 *
 * ```hcl
 * template {
 *   data          = <<EOT
 * {{ with secret "secret/data/web" }}DB_PASSWORD={{ .Data.data.password }}{{ end }}
 * EOT
 *   destination   = "secrets/db.env"
 *   env           = true
 *   change_mode   = "script"   # noop | restart (default) | signal (with change_signal) | script
 *   change_script { command = "/usr/local/bin/reload"  args = ["-q"]  timeout = "5s"  fail_on_error = false }
 *   perms         = "600"
 *   splay         = "5s"
 *   wait { min = "2s"  max = "10s" }
 *   left_delimiter = "[["  right_delimiter = "]]"
 *   error_on_missing_key = true
 * }
 * ```
 *
 * Every check of templates.ts runs here too, so each problem names its key's line:
 * `job.hcl:14: template "secrets/db.env": change_signal: Must specify signal value when
 * change mode is signal`; a syntax error in `data` gives Go's text with the template's own
 * line (`… data: template: secrets/db.env:3: function "secert" not defined`).
 *
 * @module
 */
import { ConfigError } from '../../../kernel/config/index.js';
import { defined, duration, issue, type Body } from './hcl-values.js';
import { decodeTemplates, templateProblems } from './templates.js';

/** The keys of a `template` block (kernel/config schema). */
export const TEMPLATE_HCL_KEYS = {
  kind: 'block',
  repeated: true,
  keys: {
    data: { kind: 'string' },
    source: { kind: 'string' },
    destination: { kind: 'string' },
    perms: { kind: 'raw' },
    uid: { kind: 'int' },
    gid: { kind: 'int' },
    env: { kind: 'bool' },
    change_mode: { kind: 'string' },
    change_signal: { kind: 'string' },
    change_script: {
      kind: 'block',
      keys: { command: { kind: 'string' }, args: { kind: 'list', of: 'string' }, timeout: { kind: 'raw' }, fail_on_error: { kind: 'bool' } },
    },
    splay: { kind: 'raw' },
    wait: { kind: 'block', keys: { min: { kind: 'raw' }, max: { kind: 'raw' } } },
    left_delimiter: { kind: 'string' },
    right_delimiter: { kind: 'string' },
    error_on_missing_key: { kind: 'bool' },
    once: { kind: 'bool' },
    vault_grace: { kind: 'raw' },
  },
} as const;

/** `perms = "600"` (or a number, which HCL turns into its digits as the reference's does). @throws ConfigError for anything else. */
function perms(b: Body): string | undefined {
  const v = b.perms;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return String(v);
  throw issue(b.$at, 'perms', '"perms" must be an octal mode as a string, such as "644"');
}

function template(b: Body): Record<string, unknown> {
  const script = b.change_script as Body | undefined;
  const wait = b.wait as Body | undefined;
  return defined({
    SourcePath: b.source,
    DestPath: b.destination,
    EmbeddedTmpl: b.data,
    ChangeMode: b.change_mode,
    ChangeSignal: b.change_signal,
    ChangeScript: script && defined({ Command: script.command, Args: script.args, Timeout: duration(script, 'timeout'), FailOnError: script.fail_on_error }),
    Splay: duration(b, 'splay'),
    Perms: perms(b),
    Uid: b.uid,
    Gid: b.gid,
    LeftDelim: b.left_delimiter,
    RightDelim: b.right_delimiter,
    Envvars: b.env,
    ErrMissingKey: b.error_on_missing_key,
    Wait: wait && defined({ Min: duration(wait, 'min'), Max: duration(wait, 'max') }),
    Once: b.once,
    VaultGrace: duration(b, 'vault_grace'),
  });
}

/**
 * The `Templates` JSON of a task's `template` blocks (undefined for none).
 * @throws ConfigError with every problem at its key's line (module doc): a bad duration or
 *   `perms`, and each check of templates.ts `templateProblems`.
 */
export function templatesFromHcl(list: readonly Body[] | undefined): Record<string, unknown>[] | undefined {
  if (!list || list.length === 0) return undefined;
  const out = list.map(template);
  const issues = list.flatMap((b, i) => {
    const decoded = decodeTemplates([out[i]], 'Templates')![0]!;
    const what = `template${decoded.DestPath ? ` ${JSON.stringify(decoded.DestPath)}` : ''}`;
    return templateProblems(decoded).map((p) => ({
      file: b.$at.file,
      line: b.$at.keyLines[p.field] ?? b.$at.line,
      key: p.field,
      message: `${what}: ${p.field}: ${p.message}`,
    }));
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return out;
}
