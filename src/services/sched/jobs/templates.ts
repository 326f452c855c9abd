/**
 * The `template` blocks of a task (reference/integration.md §3; the reference's
 * `api.Template`, its `Canonicalize` and `structs.Template.Validate`): their JSON shape on
 * the task (`Templates`), decoding the job API's JSON with the reference's defaults, and the
 * checks done at submit, the template text's syntax included (parsed with the job template
 * functions, sched/template/render.ts). Nothing renders here: the client does.
 *
 * ```json
 * "Templates": [{
 *   "EmbeddedTmpl": "{{ key \"app/config\" }}", "SourcePath": "", "DestPath": "local/app.conf",
 *   "ChangeMode": "signal", "ChangeSignal": "SIGHUP", "ChangeScript": null,
 *   "Splay": 5000000000, "Perms": "0644", "Uid": null, "Gid": null,
 *   "LeftDelim": "{{", "RightDelim": "}}", "Envvars": false, "ErrMissingKey": false,
 *   "Wait": { "Min": 2000000000, "Max": 10000000000 }, "Once": false, "VaultGrace": 0
 * }]
 * ```
 *
 * Durations are integer nanoseconds (or Go duration strings, as Go's decoder reads
 * `time.Duration` from this project's API).
 *
 * @module
 */
import { constants } from 'node:os';
import { posix } from 'node:path';
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { TemplateError } from '../../../kernel/template/index.js';
import { parseJobTemplate } from '../template/render.js';

/** What the client runs when a `script` template changes (reference `ChangeScript`); `Timeout` in ns. */
interface ChangeScript {
  readonly Command: string;
  readonly Args: readonly string[];
  readonly Timeout: number;
  readonly FailOnError: boolean;
}

/** A task's template (reference `Template`; module doc). Durations in ns. */
export interface Template {
  readonly SourcePath: string;
  /** Relative to the task's directory, which it may not leave; may hold `${…}` interpolations. */
  readonly DestPath: string;
  /** The template text (`data`). */
  readonly EmbeddedTmpl: string;
  /** `noop`, `restart` (default), `signal` or `script`. */
  readonly ChangeMode: string;
  /** Upper-cased signal name; required with `signal`. */
  readonly ChangeSignal: string;
  readonly ChangeScript: ChangeScript | null;
  /** Random delay up to this before the change action; default 5 s. */
  readonly Splay: number;
  /** Octal file mode of the rendered file; default `0644`. */
  readonly Perms: string;
  readonly Uid: number | null;
  readonly Gid: number | null;
  readonly LeftDelim: string;
  readonly RightDelim: string;
  /** `env`: the rendered `KEY=value` lines become the task's environment. */
  readonly Envvars: boolean;
  /** `error_on_missing_key`. */
  readonly ErrMissingKey: boolean;
  /** Quiescence window before rendering; null: the client's default. */
  readonly Wait: { readonly Min: number | null; readonly Max: number | null } | null;
  readonly Once: boolean;
  /** Deprecated in the reference and ignored; kept as sent. */
  readonly VaultGrace: number;
}

/** The reference's defaults (`api.Template.Canonicalize`). */
const DEFAULTS = { ChangeMode: 'restart', Splay: 5e9, Perms: '0644', LeftDelim: '{{', RightDelim: '}}', ScriptTimeout: 5e9 } as const;
/** Templates of one task (Cairn's input bound). */
const MAX_TEMPLATES = 32;
const CHANGE_MODES = ['noop', 'restart', 'signal', 'script'];

function nullableInt(raw: Record<string, unknown>, name: string, path: string): number | null {
  const v = fieldOf(raw, name);
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type int`);
  return v;
}

function decodeWait(v: unknown, path: string): Template['Wait'] {
  if (v === undefined || v === null) return null;
  const d = decodeGoStruct(v, path, { Min: 'duration', Max: 'duration' });
  return { Min: fieldOf(v, 'Min') === undefined ? null : (d.Min as number), Max: fieldOf(v, 'Max') === undefined ? null : (d.Max as number) };
}

function decodeScript(v: unknown, path: string): ChangeScript | null {
  if (v === undefined || v === null) return null;
  const d = decodeGoStruct(v, path, { Command: 'string', Args: 'strings', Timeout: 'duration', FailOnError: 'bool' });
  return {
    Command: d.Command as string,
    Args: (d.Args as string[] | null) ?? [],
    Timeout: fieldOf(v, 'Timeout') === undefined ? DEFAULTS.ScriptTimeout : (d.Timeout as number),
    FailOnError: d.FailOnError as boolean,
  };
}

function decodeTemplate(raw: unknown, path: string): Template {
  const d = decodeGoStruct(raw, path, {
    SourcePath: 'string',
    DestPath: 'string',
    EmbeddedTmpl: 'string',
    ChangeMode: 'string',
    ChangeSignal: 'string',
    ChangeScript: 'any',
    Splay: 'duration',
    Perms: 'string',
    LeftDelim: 'string',
    RightDelim: 'string',
    Envvars: 'bool',
    VaultGrace: 'duration',
    Wait: 'any',
    ErrMissingKey: 'bool',
    Once: 'bool',
  });
  const r = raw as Record<string, unknown>;
  return {
    SourcePath: d.SourcePath as string,
    DestPath: d.DestPath as string,
    EmbeddedTmpl: d.EmbeddedTmpl as string,
    ChangeMode: (d.ChangeMode as string) || DEFAULTS.ChangeMode,
    ChangeSignal: (d.ChangeSignal as string).toUpperCase(),
    ChangeScript: decodeScript(d.ChangeScript, `${path}.ChangeScript`),
    Splay: fieldOf(r, 'Splay') === undefined ? DEFAULTS.Splay : (d.Splay as number),
    Perms: (d.Perms as string) || DEFAULTS.Perms,
    Uid: nullableInt(r, 'Uid', path),
    Gid: nullableInt(r, 'Gid', path),
    LeftDelim: (d.LeftDelim as string) || DEFAULTS.LeftDelim,
    RightDelim: (d.RightDelim as string) || DEFAULTS.RightDelim,
    Envvars: d.Envvars as boolean,
    ErrMissingKey: d.ErrMissingKey as boolean,
    Wait: decodeWait(d.Wait, `${path}.Wait`),
    Once: d.Once as boolean,
    VaultGrace: d.VaultGrace as number,
  };
}

/**
 * Decodes a task's `Templates` (`path` names it in errors) with the reference's defaults:
 * `ChangeMode` `restart`, `Splay` 5 s, `Perms` `0644`, delimiters `{{` `}}`,
 * `ChangeSignal` upper-cased, a `ChangeScript`'s `Timeout` 5 s. `null` for none.
 * @throws 400 Go's decoder texts naming the field.
 */
export function decodeTemplates(v: unknown, path: string): Template[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type []*api.Template`);
  const out = v.filter((t) => t !== null).map((t) => decodeTemplate(t, path));
  return out.length > 0 ? out : null;
}

/**
 * Whether `dest` leaves the task's directory. `${…}` interpolations (`${CAIRN_SECRETS_DIR}`,
 * resolved on the client, which checks again) count as one directory level; an absolute
 * path is read inside the task's directory, as the reference's `PathEscapesAllocDir("task", …)`.
 */
function destinationEscapes(dest: string): boolean {
  const bare = dest.replace(/\$\{[^}]*\}/g, 'x');
  const joined = posix.normalize(`/task/${bare}`);
  return !joined.startsWith('/task/') || joined === '/task/';
}

/** A problem of one template: `field` the HCL key it is about (the line to show), `message` the text. */
export interface TemplateProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * The submit-time problems of one template, in the reference's words where it has them
 * (`structs.Template.Validate`): something to render (`data` xor `source`), a destination
 * inside the task's directory, the change mode and what it needs (`change_signal` a known
 * signal, not with `env`; `change_script.command`), a positive splay, octal `perms`, `wait`
 * min ≤ max; and the text of `data` parsed with its delimiters (Go's parse error, with the
 * template's line). `field` is the HCL key each is about.
 */
export function templateProblems(t: Template): TemplateProblem[] {
  const out: TemplateProblem[] = [];
  const add = (field: string, message: string) => out.push({ field, message });
  if (t.SourcePath === '' && t.EmbeddedTmpl === '') add('data', 'Must specify a source path or have an embedded template');
  if (t.SourcePath !== '' && t.EmbeddedTmpl !== '') add('source', 'Cannot specify both source and data: give one');
  if (t.DestPath === '') add('destination', 'Must specify a destination for the template');
  else if (t.DestPath.includes('\0') || destinationEscapes(t.DestPath)) add('destination', 'destination escapes the task directory');
  if (!CHANGE_MODES.includes(t.ChangeMode)) add('change_mode', 'Invalid change mode. Must be one of the following: noop, signal, script, restart');
  if (t.ChangeMode === 'signal') {
    if (t.ChangeSignal === '') add('change_signal', 'Must specify signal value when change mode is signal');
    if (t.Envvars) add('env', 'cannot use signals with env var templates');
  }
  if (t.ChangeSignal !== '' && !Object.hasOwn(constants.signals, t.ChangeSignal))
    add('change_signal', `change_signal ${JSON.stringify(t.ChangeSignal)} is not a known signal`);
  if (t.ChangeMode === 'script') {
    if (!t.ChangeScript || t.ChangeScript.Command === '') add('change_script', 'must specify a change_script command when change mode is script');
    else if (t.ChangeScript.Timeout < 0) add('change_script', 'change_script timeout must be positive');
  }
  if (t.Splay < 0) add('splay', 'Must specify positive splay value');
  if (!/^[0-7]+$/.test(t.Perms) || parseInt(t.Perms, 8) > 0o7777) add('perms', `Failed to parse ${JSON.stringify(t.Perms)} as octal`);
  const w = t.Wait;
  if (w && ((w.Min ?? 0) < 0 || (w.Max ?? 0) < 0)) add('wait', 'wait min and max must be greater than or equal to 0');
  else if (w && w.Min !== null && w.Max !== null && w.Min > w.Max) add('wait', `wait min ${w.Min}ns must be less than or equal to wait max ${w.Max}ns`);
  if (t.EmbeddedTmpl !== '') {
    try {
      parseJobTemplate(t.EmbeddedTmpl, {
        name: t.DestPath || 'template',
        leftDelim: t.LeftDelim,
        rightDelim: t.RightDelim,
        errorOnMissingKey: t.ErrMissingKey,
      });
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      add('data', err.message);
    }
  }
  return out;
}

/** The submit-time problems of a task's templates as validate.ts lists them: `Template 1 (local/app.env): <problem>`, and the count bound. */
export function templateErrors(templates: readonly Template[] | null | undefined): string[] {
  const list = templates ?? [];
  const out = list.length > MAX_TEMPLATES ? [`at most ${MAX_TEMPLATES} templates are allowed, got ${list.length}`] : [];
  for (const [i, t] of list.entries()) {
    for (const p of templateProblems(t)) out.push(`Template ${i + 1}${t.DestPath ? ` (${t.DestPath})` : ''}: ${p.message}`);
  }
  return out;
}
