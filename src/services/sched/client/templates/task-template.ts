/**
 * One `template` block of a task on the client (reference/integration.md §3): its text
 * parsed once, its destination resolved inside the task directory (paths.ts), each render
 * over the task's dependency cache (sched/template/render.ts), the file written only when its
 * bytes change (write-file.ts), and the state the task reports for it
 * (`TaskState.Templates[i]`: `waiting`, `rendered` or `stale`; never its content).
 *
 * @module
 */
import { statSync } from 'node:fs';
import type { Template as Parsed } from '../../../../kernel/template/index.js';
import type { TaskTemplateState } from '../../jobs/types.js';
import type { Template } from '../../jobs/templates.js';
import { parseJobTemplate, renderJobTemplate } from '../../template/render.js';
import { describeDependency, type Dependency } from '../../template/dependency.js';
import type { NodeVars } from '../interpolate.js';
import { parseEnvFile } from './env-file.js';
import { confinedTaskPath, readSourceFile } from './paths.js';
import { fileMode, writeIfChanged } from './write-file.js';

/** The quiescence window of a template, ms (`wait { min max }`); 0/0: render at once. */
export interface WaitWindow {
  readonly minMs: number;
  readonly maxMs: number;
}

/** What a render did. */
export type RenderOutcome =
  /** Dependencies are missing: nothing written. */
  | { readonly kind: 'missing'; readonly missing: readonly Dependency[] }
  /** Rendered; `changed`: the file (and so the environment) changed. */
  | { readonly kind: 'rendered'; readonly changed: boolean };

/** One template of a task (module doc). */
export class TaskTemplate {
  readonly dest: string;
  readonly mode: number;
  readonly wait: WaitWindow;
  private readonly parsed: Parsed;
  /** What the last render touched, by dependency text. */
  used = new Map<string, Dependency>();
  private missing: readonly Dependency[] = [];
  private rendered = false;
  private lastRendered: string | null = null;
  /** What its failing dependencies said, by dependency text. */
  private readonly failing = new Map<string, string>();
  /** Its variables when `env = true`, as of its last render. */
  vars: Readonly<Record<string, string>> = {};

  /**
   * @throws Error when the destination or source escapes the task directory, the source
   *   cannot be read, the perms are not octal, or the text does not parse (Go's wording).
   */
  constructor(
    readonly spec: Template,
    o: { readonly taskDir: string; readonly env: Readonly<Record<string, string>>; readonly node: NodeVars; readonly clientWait: WaitWindow },
  ) {
    const paths = { env: o.env, node: o.node };
    this.dest = confinedTaskPath(o.taskDir, spec.DestPath, { ...paths, what: 'destination' });
    const secretsDir = confinedTaskPath(o.taskDir, 'secrets', { ...paths, what: 'destination' });
    this.mode = fileMode(spec.Perms, this.dest.startsWith(`${secretsDir}/`));
    const text = spec.SourcePath !== '' ? readSourceFile(confinedTaskPath(o.taskDir, spec.SourcePath, { ...paths, what: 'source' })) : spec.EmbeddedTmpl;
    this.parsed = parseJobTemplate(text, {
      name: spec.DestPath,
      leftDelim: spec.LeftDelim,
      rightDelim: spec.RightDelim,
      errorOnMissingKey: spec.ErrMissingKey,
    });
    this.wait = {
      minMs: spec.Wait?.Min != null ? spec.Wait.Min / 1e6 : o.clientWait.minMs,
      maxMs: spec.Wait?.Max != null ? spec.Wait.Max / 1e6 : o.clientWait.maxMs,
    };
  }

  /** Has it rendered once? */
  get ready(): boolean {
    return this.rendered;
  }

  /** What it waits for (empty once rendered). */
  get waitingFor(): readonly Dependency[] {
    return this.missing;
  }

  /**
   * Renders over `cache` and writes the file when its bytes changed; `env = true` templates
   * parse their variables first (a bad line changes nothing).
   * @throws TemplateError (a render error with nothing missing); Error `failed to read
   *   environment variables: line N: …`; the file system's error.
   */
  render(cache: ReadonlyMap<string, unknown>, env: Readonly<Record<string, string>>, nowMs: number): RenderOutcome {
    const r = renderJobTemplate(this.parsed, { cache, env });
    this.used = new Map(r.used.map((d) => [describeDependency(d), d]));
    if (r.missing.length > 0) {
      this.missing = r.missing;
      return { kind: 'missing', missing: r.missing };
    }
    this.missing = [];
    let vars = this.vars;
    if (this.spec.Envvars) {
      try {
        vars = parseEnvFile(r.output);
      } catch (err) {
        throw new Error(`failed to read environment variables: ${(err as Error).message}`, { cause: err });
      }
    }
    const changed = writeIfChanged(this.dest, r.output, this.mode);
    this.vars = vars;
    this.rendered = true;
    // A file left as it was (a client that restarted) was last changed when it was written.
    if (changed) this.lastRendered = new Date(nowMs).toISOString();
    else if (this.lastRendered === null) this.lastRendered = statSync(this.dest).mtime.toISOString();
    return { kind: 'rendered', changed };
  }

  /** A dependency it uses failed (`message`) or recovered (undefined). */
  sourceState(key: string, message: string | undefined): void {
    if (message === undefined) this.failing.delete(key);
    else this.failing.set(key, message);
  }

  /** Its part of the task state (module doc). */
  state(): TaskTemplateState {
    const failing = [...this.failing.keys()].filter((k) => this.used.has(k)).sort();
    const error = failing.length > 0 ? `${failing[0]}: ${this.failing.get(failing[0]!)}` : undefined;
    const base = {
      DestPath: this.spec.DestPath,
      LastRendered: this.lastRendered,
      ...(error !== undefined && { Error: error }),
    };
    if (!this.rendered) return { ...base, State: 'waiting', Missing: this.missing.map(describeDependency).sort() };
    if (failing.length > 0) return { ...base, State: 'stale', Missing: failing };
    return { ...base, State: 'rendered', Missing: [] };
  }
}
