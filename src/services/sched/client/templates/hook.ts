/**
 * The client's template hook (issue 27 scopes 5 and 6; reference/integration.md §3, the
 * reference's template hook and `TaskTemplateManager`), the last of a task's hooks:
 *
 * 1. Before the first start, every template renders once over data its source fetches and
 *    watches (client/templates/source.ts), each dependency watched once for all of the task's
 *    templates. While one waits, a `Template` event says for what (`Missing: kv.block(app)`,
 *    sent when the missing set changes, at most every {@link MISSING_EVENT_MS} as the
 *    reference's `MaxTemplateEventRate`), and the task state says `waiting`. The task starts
 *    once all rendered; `env = true` templates' variables are in its environment.
 * 2. Then each new value re-renders the templates using it after their `wait { min max }`
 *    quiescence; a file is written only when its bytes change (write-file.ts), and only a
 *    change fires its `change_mode`. Changes of several templates within one splay window make
 *    one action: a restart wins over signals and scripts (as the reference). A restart first
 *    takes a job-wide permit from the servers (restart-permit.ts) and gives it back once the
 *    task runs again, so a job never restarts more allocations at once than its
 *    `update.max_parallel`.
 * 3. A failing source never stops the task (§8.3): the template keeps its file and data, its
 *    state turns `stale` with the error, one `Template` event tells the outage and one the
 *    recovery, and the source retries for as long as the task lives. Before the first render
 *    the task keeps waiting.
 *
 * Messages are the reference's: `Template with change_mode restart re-rendered` (the
 * restart's reason), `Template failed: <err>` and `Template failed to read environment
 * variables: <err>` (fail the task), `Template failed to run script <cmd> with arguments
 * [<args>] on change: <err> Exit code: <n>`, `Template successfully ran script …`.
 *
 * @module
 */
import type { Logger } from '../../../../kernel/log/logger.js';
import type { Task } from '../../jobs/types.js';
import { describeDependency, type Dependency } from '../../template/dependency.js';
import { missingMessage } from '../../template/render.js';
import type { NodeVars } from '../interpolate.js';
import type { TaskControl, TaskHook } from '../task-hooks.js';
import { runChangeScript } from './change-script.js';
import type { RestartPermits } from './restart-permit.js';
import type { TemplateSource } from './source.js';
import { TaskTemplate, type WaitWindow } from './task-template.js';

/** The reference's `MaxTemplateEventRate`: at most one `Missing:` event per this many ms. */
const MISSING_EVENT_MS = 3000;
/** Longest a restart permit is held waiting for the task to run again, ms (the servers' expiry). */
const PERMIT_HOLD_MS = 60_000;
/** How often a held permit checks whether the task runs again, ms. */
const PERMIT_POLL_MS = 50;
/** How long every source must keep answering before an outage is announced over, ms (a service that flaps while it stops is one outage). */
const RECOVERY_SETTLE_MS = 2000;
/** The task event type of this hook (the reference's `consulTemplateSourceName`). */
const TEMPLATE_EVENT = 'Template';
/** The restart reason (the reference's `TaskRestartSignal` display message). */
const RESTART_REASON = 'Template with change_mode restart re-rendered';

/** What a task's template hook needs. */
export interface TemplateHookOptions {
  readonly task: Task;
  readonly taskDir: string;
  /** The task's environment: `${…}` in paths and the `env` function. */
  readonly env: Readonly<Record<string, string>>;
  readonly node: NodeVars;
  /** Creates the task's source when the prestart runs (the hooks before it have set the tokens it reads). */
  readonly source: () => TemplateSource & { close(): void };
  /** The client's `template { wait }`, for templates without their own. */
  readonly wait: WaitWindow;
  /** The job-wide restart limit (restart-permit.ts); absent: restarts go ahead at once. */
  readonly permits?: RestartPermits;
  readonly log: Logger;
  /** Epoch ms. */
  readonly now: () => number;
  /** [0, 1): splay and jitter. */
  readonly random?: () => number;
}

/** Does `task` have templates for this hook? */
export function hasTemplates(task: Task): boolean {
  return (task.Templates ?? []).length > 0;
}

/** The template hook of one task (module doc). */
export class TemplateHook implements TaskHook {
  readonly name = 'template';
  private templates: TaskTemplate[] = [];
  private source: (TemplateSource & { close(): void }) | undefined;
  private control: TaskControl | undefined;
  /** Fetched values by dependency text, shared by the task's templates. */
  private readonly cache = new Map<string, unknown>();
  private readonly watches = new Map<string, () => void>();
  /** Failing dependencies and their last error. */
  private readonly failing = new Map<string, string>();
  private started = false;
  private stopped = false;
  private readonly stopping = new AbortController();
  private firstDone: (() => void) | undefined;
  private firstFailed: ((err: Error) => void) | undefined;
  /** Keys whose values changed since the last render pass. */
  private readonly changedKeys = new Set<string>();
  private renderQueued = false;
  /** Per template: its quiescence timers and when its first unrendered change came. */
  private readonly quiet = new Map<TaskTemplate, { timer: NodeJS.Timeout; since: number }>();
  /** Templates whose file changed and whose change action is due. */
  private readonly pendingActions = new Set<TaskTemplate>();
  private acting = false;
  private missingTimer: NodeJS.Timeout | undefined;
  private lastMissing = '';
  /** A source outage was announced and has not ended. */
  private outage = false;
  /** Ends the outage once the sources kept answering (sourceRecovered). */
  private recovery: NodeJS.Timeout | undefined;

  constructor(private readonly o: TemplateHookOptions) {}

  /** The variables of the `env = true` templates, later templates winning. */
  env(): Record<string, string> {
    return Object.assign({}, ...this.templates.filter((t) => t.spec.Envvars).map((t) => t.vars)) as Record<string, string>;
  }

  /**
   * Renders every template once (module doc); resolves when all rendered, or at once when
   * `abort` fires. @throws Error when a template cannot be set up (a destination that escapes,
   *   a bad source or perms), fails to render with nothing missing, or its env lines are bad.
   */
  async prestart(control: TaskControl, abort: AbortSignal): Promise<void> {
    this.control = control;
    const clientWait = this.o.wait;
    this.templates = (this.o.task.Templates ?? []).map(
      (spec) => new TaskTemplate(spec, { taskDir: this.o.taskDir, env: this.o.env, node: this.o.node, clientWait }),
    );
    this.source = this.o.source();
    const first = new Promise<void>((resolve, reject) => {
      this.firstDone = resolve;
      this.firstFailed = reject;
    });
    const onAbort = () => this.firstDone?.();
    abort.addEventListener('abort', onAbort, { once: true });
    try {
      this.renderPass(this.templates);
      await first;
    } finally {
      abort.removeEventListener('abort', onAbort);
      this.firstDone = this.firstFailed = undefined;
      clearTimeout(this.missingTimer);
    }
    this.started = !abort.aborted;
  }

  /** Stops every watch and timer and closes the source. Never throws. */
  stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    // Closed first: the watches then stop with the source, which keeps what it persisted for the next run of the agent.
    this.source?.close();
    for (const stop of this.watches.values()) stop();
    this.watches.clear();
    for (const q of this.quiet.values()) clearTimeout(q.timer);
    this.quiet.clear();
    clearTimeout(this.missingTimer);
    clearTimeout(this.recovery);
    this.firstDone?.();
    return Promise.resolve();
  }

  /** Renders `templates`, watches what they touched, and moves the first render or the change actions on. */
  private renderPass(templates: readonly TaskTemplate[]): void {
    if (this.stopped) return;
    const now = this.o.now();
    for (const t of templates) {
      let outcome;
      try {
        outcome = t.render(this.cache, this.o.env, now);
      } catch (err) {
        this.renderFailed(err as Error);
        return;
      }
      if (outcome.kind === 'rendered' && outcome.changed && this.started && t.spec.ChangeMode !== 'noop') this.pendingActions.add(t);
    }
    this.syncWatches();
    this.report();
    if (!this.started) this.firstRenderProgress();
    else if (this.pendingActions.size > 0) void this.act();
  }

  /** A render error: before the start the prestart fails; after, the task is killed as the reference's runner error does. */
  private renderFailed(err: Error): void {
    const env = err.message.startsWith('failed to read environment variables');
    const message = env ? `Template ${err.message}` : `Template failed: ${err.message}`;
    if (!this.started) return this.firstFailed?.(new Error(message));
    this.o.log.warn({ task: this.o.task.Name, err: err.message }, 'client: a template failed; killing the task');
    this.control?.kill(message);
  }

  /** Before the start: done when all rendered; else a `Missing:` event when the missing set changed (rate-limited). */
  private firstRenderProgress(): void {
    if (this.templates.every((t) => t.ready)) return this.firstDone?.();
    const missing = this.missingNow();
    const text = missing.length > 0 ? missingMessage(missing) : '';
    if (text === this.lastMissing || this.missingTimer !== undefined) return;
    this.missingTimer = setTimeout(() => {
      this.missingTimer = undefined;
      const now = this.missingNow();
      if (now.length === 0 || this.started || this.stopped) return;
      this.lastMissing = missingMessage(now);
      this.control?.event(TEMPLATE_EVENT, this.lastMissing);
    }, MISSING_EVENT_MS);
    this.missingTimer.unref();
  }

  /** What the templates still wait for, each once. */
  private missingNow(): Dependency[] {
    const all = new Map<string, Dependency>();
    for (const t of this.templates) for (const d of t.waitingFor) all.set(describeDependency(d), d);
    return [...all.values()];
  }

  /** Watches every dependency a template uses; stops the watches of those none uses any more. */
  private syncWatches(): void {
    const used = new Map<string, Dependency>();
    for (const t of this.templates) for (const [k, d] of t.used) used.set(k, d);
    for (const [key, stop] of this.watches) {
      if (used.has(key)) continue;
      stop();
      this.watches.delete(key);
      this.cache.delete(key);
      this.failing.delete(key);
    }
    for (const [key, d] of used) if (!this.watches.has(key)) this.watch(key, d);
  }

  private watch(key: string, d: Dependency): void {
    const source = this.source;
    if (!source) return;
    // Registered before the call: a source may answer at once, from inside `watch`.
    this.watches.set(key, () => undefined);
    const stop = source.watch(d, {
      value: (v) => this.onValue(key, v),
      error: (err) => this.onError(key, err),
    });
    if (this.watches.has(key)) this.watches.set(key, stop);
    else stop();
  }

  private onValue(key: string, v: unknown): void {
    if (this.stopped || !this.watches.has(key)) return;
    this.cache.set(key, v);
    if (this.failing.delete(key)) this.sourceRecovered(key);
    this.changedKeys.add(key);
    if (this.renderQueued) return;
    this.renderQueued = true;
    // Values that arrive together (one source answer, several dependencies) make one pass.
    queueMicrotask(() => {
      this.renderQueued = false;
      const keys = new Set(this.changedKeys);
      this.changedKeys.clear();
      // A `once` template renders only the first time (the reference's `once` mode).
      const touched = this.templates.filter((t) => !(t.spec.Once && t.ready) && [...keys].some((k) => t.used.has(k)));
      if (!this.started) this.renderPass(touched);
      else for (const t of touched) this.quiesce(t);
    });
  }

  /** A dependency failed: the templates using it turn stale; one event per outage (its first failing dependency). */
  private onError(key: string, err: Error): void {
    if (this.stopped || !this.watches.has(key)) return;
    // Sources name the dependency in their messages already.
    const message = err.message.startsWith(`${key}: `) ? err.message.slice(key.length + 2) : err.message;
    this.failing.set(key, message);
    for (const t of this.templates) t.sourceState(key, message);
    this.report();
    // A failure while a recovery settles is the same outage: no new event.
    if (this.recovery !== undefined) {
      clearTimeout(this.recovery);
      this.recovery = undefined;
    }
    if (this.outage) return;
    this.outage = true;
    const kept = this.templates.some((t) => t.ready) ? '; templates keep their last render' : '; the task waits for it';
    this.control?.event(TEMPLATE_EVENT, `Source unavailable: ${key}: ${message}${kept}`);
    this.o.log.warn({ task: this.o.task.Name, dependency: key, err: message }, 'client: a template source is failing; retrying');
  }

  /** A failing dependency answered: its templates are fresh again; the outage ends (one event) once every source answered for {@link RECOVERY_SETTLE_MS}. */
  private sourceRecovered(key: string): void {
    for (const t of this.templates) t.sourceState(key, undefined);
    this.report();
    if (this.failing.size > 0 || !this.outage || this.recovery !== undefined) return;
    this.recovery = setTimeout(() => {
      this.recovery = undefined;
      if (this.stopped || this.failing.size > 0) return;
      this.outage = false;
      this.control?.event(TEMPLATE_EVENT, `Source available again: ${key}`);
    }, RECOVERY_SETTLE_MS);
    this.recovery.unref();
  }

  /** Re-renders `t` once its data stopped changing for `wait.min`, at the latest `wait.max` after the first change. */
  private quiesce(t: TaskTemplate): void {
    const { minMs, maxMs } = t.wait;
    if (minMs <= 0 && maxMs <= 0) return this.renderPass([t]);
    const now = this.o.now();
    const q = this.quiet.get(t);
    if (q) clearTimeout(q.timer);
    const since = q?.since ?? now;
    const delay = Math.max(0, Math.min(minMs, maxMs > 0 ? since + maxMs - now : minMs));
    const timer = setTimeout(() => {
      this.quiet.delete(t);
      this.renderPass([t]);
    }, delay);
    timer.unref();
    this.quiet.set(t, { timer, since });
  }

  /** Applies the due change actions, after the largest splay of the templates involved (module doc). */
  private async act(): Promise<void> {
    if (this.acting) return;
    this.acting = true;
    try {
      while (this.pendingActions.size > 0 && !this.stopped) {
        const random = this.o.random ?? Math.random;
        const splayMs = Math.max(0, ...[...this.pendingActions].map((t) => t.spec.Splay / 1e6));
        if (splayMs > 0) await this.sleep(Math.floor(random() * splayMs));
        if (this.stopped) return;
        const due = [...this.pendingActions];
        this.pendingActions.clear();
        await this.apply(due);
      }
    } finally {
      this.acting = false;
    }
  }

  private async apply(due: readonly TaskTemplate[]): Promise<void> {
    const c = this.control;
    if (!c || c.dead) return;
    if (due.some((t) => t.spec.ChangeMode === 'restart')) return this.restart(c);
    const signals = new Set(due.filter((t) => t.spec.ChangeMode === 'signal').map((t) => t.spec.ChangeSignal));
    for (const s of signals) {
      if (!c.running) {
        this.o.log.debug({ task: this.o.task.Name, signal: s }, 'client: no process to signal for a re-rendered template; it reads the file when it starts');
        continue;
      }
      try {
        c.signal(s);
      } catch (err) {
        return c.kill(`Template failed to send signals [${s}]: ${(err as Error).message}`);
      }
    }
    for (const t of due) if (t.spec.ChangeMode === 'script') await this.script(c, t);
  }

  /** `change_mode = "restart"`: with a permit when the servers limit restarts; the permit is held until the task runs again. */
  private async restart(c: TaskControl): Promise<void> {
    const permits = this.o.permits;
    if (!permits) return c.restart(RESTART_REASON);
    try {
      await permits.acquire(this.stopping.signal);
    } catch {
      return; // Stopped while waiting.
    }
    try {
      const starts = c.starts;
      c.restart(RESTART_REASON);
      const deadline = this.o.now() + PERMIT_HOLD_MS;
      while (!this.stopped && !c.dead && !(c.starts > starts && c.running) && this.o.now() < deadline) await this.sleep(PERMIT_POLL_MS);
    } finally {
      await permits.release();
    }
  }

  /** `change_mode = "script"`, with the reference's events; `fail_on_error` kills the task on a failure. */
  private async script(c: TaskControl, t: TaskTemplate): Promise<void> {
    const s = t.spec.ChangeScript;
    if (!s) return;
    const args = `[${s.Args.join(' ')}]`;
    const r = await runChangeScript({
      command: s.Command,
      args: s.Args,
      cwd: this.o.taskDir,
      env: { ...this.o.env, ...this.env() },
      timeoutMs: s.Timeout / 1e6,
    });
    if (r.error === undefined && r.exitCode === 0) {
      c.event('Task hook message', `Template successfully ran script ${s.Command} with arguments: ${args}. Exit code: ${r.exitCode}`);
      return;
    }
    const why = `Template failed to run script ${s.Command} with arguments ${args} on change: ${r.error ?? 'non-zero exit'} Exit code: ${r.exitCode}`;
    this.o.log.warn({ task: this.o.task.Name, output: r.output }, why);
    if (s.FailOnError) c.kill(why);
    else c.event('Task hook failed', why);
  }

  /** Publishes the templates' states. */
  private report(): void {
    this.control?.report({ Templates: this.templates.map((t) => t.state()) });
  }

  /** Waits `ms`, or less when the hook stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const t = setTimeout(done, ms);
      const signal = this.stopping.signal;
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
