/**
 * The checks an agent runs for its node (reference/mesh-catalog.md "Agent"): each check's
 * current status and output, its TTL timer or its probe runs, and what the catalog is to
 * get of it. The agent (local-agent.ts) decides which checks exist; this file runs them
 * and says when the catalog should hear of a change:
 *
 * - TTL checks go `critical` with `TTL expired` when not updated within their TTL;
 *   HTTP and TCP checks run every interval (probes.ts), and with `SuccessBeforePassing` /
 *   `FailuresBeforeCritical` their status turns only after that many consecutive results
 *   (the output is always the latest);
 * - a status change is reported at once; a check whose output changes but whose status
 *   does not reaches the catalog at most every `checkUpdateIntervalMs` (5 min; the
 *   reference's `check_update_interval`), so a check whose output holds a timestamp does
 *   not write every interval.
 *
 * @module
 */
import type { CheckDoc, CheckStatus, ServiceDoc } from '../catalog/model.js';
import type { LocalCheck } from './definition.js';
import { httpProbe, OUTPUT_MAX_BYTES, tcpProbe } from './probes.js';

/** Options of {@link CheckRunner}. */
export interface CheckRunnerOptions {
  /** The agent's node name (each check document's `Node`). */
  readonly nodeName: string;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /**
   * How long, in ms, a check output change that keeps the status may wait before it is
   * written to the catalog (the reference's `check_update_interval`); default 5 min.
   */
  readonly checkUpdateIntervalMs?: number;
  /** The local service `id` (a check document carries its name and tags), or undefined. */
  readonly serviceOf: (id: string) => ServiceDoc | undefined;
  /** The catalog should get the checks now: a status changed, or a held-back output change is due. */
  readonly onChange: () => void;
}

/** A check with its current state and timer. */
interface Running {
  readonly def: LocalCheck;
  status: CheckStatus;
  output: string;
  /** Epoch ms since which it has been critical; undefined when it is not. */
  criticalSince: number | undefined;
  timer: NodeJS.Timeout | undefined;
  /** What the catalog was last given: status, output and when (epoch ms; see `checkUpdateIntervalMs`). */
  pushed: { status: CheckStatus; output: string; at: number } | undefined;
  /** The pending sync of an output-only change. */
  deferred: NodeJS.Timeout | undefined;
  /** Consecutive passing and failing probe results (the thresholds of HTTP/TCP checks). */
  successes: number;
  failures: number;
}

/** A check that is critical, and since when (epoch ms). */
export interface CriticalCheck {
  readonly def: LocalCheck;
  readonly since: number;
}

/** The running checks of one agent; see the module doc. */
export class CheckRunner {
  private readonly checks = new Map<string, Running>();
  private closed = false;

  constructor(private readonly o: CheckRunnerOptions) {}

  /** Whether check `id` exists. */
  has(id: string): boolean {
    return this.checks.has(id);
  }

  /** The definitions of every check, as registered (what the agent keeps across restarts). */
  definitions(): LocalCheck[] {
    return [...this.checks.values()].map((r) => r.def);
  }

  /** The checks as documents (current status and output). */
  docs(): CheckDoc[] {
    return [...this.checks.values()].map((r) => this.docOf(r));
  }

  /** Check `id` as a document, or undefined. */
  doc(id: string): CheckDoc | undefined {
    const r = this.checks.get(id);
    return r && this.docOf(r);
  }

  /**
   * The checks as the catalog is to get them: their current status, and their current
   * output unless only the output changed since the last push and `checkUpdateIntervalMs`
   * has not passed (then the output pushed last). Counts as a push.
   */
  syncDocs(): CheckDoc[] {
    return [...this.checks.values()].map((r) => this.syncDocOf(r));
  }

  /** The checks that are critical now, with the time they turned so. */
  critical(): CriticalCheck[] {
    const out: CriticalCheck[] = [];
    for (const r of this.checks.values()) if (r.criticalSince !== undefined) out.push({ def: r.def, since: r.criticalSince });
    return out;
  }

  /** Adds or replaces a check with the status it was registered with; its TTL timer or its runs start. */
  put(def: LocalCheck): void {
    const id = def.doc.CheckID;
    const prior = this.checks.get(id);
    if (prior) clearTimeout(prior.timer);
    clearTimeout(prior?.deferred);
    const r: Running = {
      def,
      status: def.doc.Status,
      output: prior?.output ?? '',
      criticalSince: undefined,
      timer: undefined,
      pushed: undefined,
      deferred: undefined,
      successes: 0,
      failures: 0,
    };
    if (r.status === 'critical') r.criticalSince = this.o.now();
    this.checks.set(id, r);
    if (def.run?.kind === 'ttl') this.armTtl(r);
    else if (def.run) this.schedule(r, 0);
  }

  /** Removes check `id` and stops its timers (nothing when there is none). */
  drop(id: string): void {
    clearTimeout(this.checks.get(id)?.timer);
    clearTimeout(this.checks.get(id)?.deferred);
    this.checks.delete(id);
  }

  /**
   * Sets a TTL check's status (`/agent/check/pass|warn|fail|update`), restarting its TTL.
   * Output past 4 KiB is cut (`… (captured 4096 of N bytes)`).
   * @returns false when `id` is not a TTL check.
   */
  updateTtl(id: string, status: CheckStatus, output: string): boolean {
    const r = this.checks.get(id);
    if (!r || r.def.run?.kind !== 'ttl') return false;
    const bytes = Buffer.from(output, 'utf8');
    const text =
      bytes.length > OUTPUT_MAX_BYTES
        ? `${bytes.subarray(0, OUTPUT_MAX_BYTES).toString('utf8')} ... (captured ${OUTPUT_MAX_BYTES} of ${bytes.length} bytes)`
        : output;
    this.setStatus(r, status, text);
    this.armTtl(r);
    return true;
  }

  /** Stops every timer; no check runs after it. */
  close(): void {
    this.closed = true;
    for (const r of this.checks.values()) {
      clearTimeout(r.timer);
      clearTimeout(r.deferred);
    }
  }

  private docOf(r: Running): CheckDoc {
    const s = r.def.doc.ServiceID ? this.o.serviceOf(r.def.doc.ServiceID) : undefined;
    return { ...r.def.doc, Node: this.o.nodeName, Status: r.status, Output: r.output, ServiceName: s?.Service ?? '', ServiceTags: s?.Tags ?? [] };
  }

  private setStatus(r: Running, status: CheckStatus, output: string): void {
    if (this.checks.get(r.def.doc.CheckID) !== r) return; // removed or replaced meanwhile
    if (status === 'critical') r.criticalSince ??= this.o.now();
    else r.criticalSince = undefined;
    const statusChanged = r.status !== status;
    const outputChanged = r.output !== output;
    r.status = status;
    r.output = output;
    if (statusChanged) this.o.onChange();
    else if (outputChanged && !r.deferred && r.pushed) {
      const wait = Math.max(0, r.pushed.at + this.updateIntervalMs() - this.o.now());
      r.deferred = setTimeout(() => {
        r.deferred = undefined;
        // Due now, even if the timer fired a millisecond before the clock says so.
        if (r.pushed) r.pushed = { ...r.pushed, at: Number.NEGATIVE_INFINITY };
        this.o.onChange();
      }, wait);
      r.deferred.unref();
    }
  }

  private updateIntervalMs(): number {
    return this.o.checkUpdateIntervalMs ?? 300_000;
  }

  private syncDocOf(r: Running): CheckDoc {
    const now = this.o.now();
    const p = r.pushed;
    if (!p || p.status !== r.status || (p.output !== r.output && now - p.at >= this.updateIntervalMs()))
      r.pushed = { status: r.status, output: r.output, at: now };
    return { ...this.docOf(r), Output: r.pushed!.output };
  }

  private armTtl(r: Running): void {
    if (r.def.run?.kind !== 'ttl') return;
    clearTimeout(r.timer);
    r.timer = setTimeout(() => {
      const last = r.output;
      this.setStatus(
        r,
        'critical',
        last === '' || last.startsWith('TTL expired') ? 'TTL expired' : `TTL expired (last output before timeout follows): ${last}`,
      );
    }, r.def.run.ttlMs);
    r.timer.unref();
  }

  /** Runs an HTTP/TCP check after `delayMs`, then every interval while it is registered. */
  private schedule(r: Running, delayMs: number): void {
    const run = r.def.run;
    if (!run || run.kind === 'ttl' || this.closed) return;
    r.timer = setTimeout(async () => {
      const result = run.kind === 'http' ? await httpProbe(run) : await tcpProbe(run);
      if (this.closed || this.checks.get(r.def.doc.CheckID) !== r) return;
      // The reference's thresholds: a status turns only after enough consecutive results of it.
      const passing = result.status === 'passing';
      r.successes = passing ? r.successes + 1 : 0;
      r.failures = passing ? 0 : r.failures + 1;
      const enough = passing ? r.successes >= (run.successBeforePassing ?? 0) : r.failures >= (run.failuresBeforeCritical ?? 0);
      this.setStatus(r, enough ? result.status : r.status, result.output);
      this.schedule(r, run.intervalMs);
    }, delayMs);
    r.timer.unref();
  }
}
