/**
 * A background round run every `intervalMs` until stopped (the leader's reapers and
 * checkers): the timer is unref'd, so it never keeps a process alive, and a failing round
 * is handed to `onError` and the next one runs as planned.
 *
 * @module
 */

/** See the module doc. */
export class Periodic {
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  /**
   * @param round one round; its rejection goes to `onError`
   * @param intervalMs pause after a round ends before the next starts, ms (rounds never overlap)
   */
  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: Error) => void,
  ) {}

  /** A round `intervalMs` from now, and again `intervalMs` after each (no-op when started). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.arm();
  }

  /** Stops the rounds and waits for one in progress. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.round()
        .catch(this.onError)
        .finally(() => {
          // Not when stopped, nor when a stop and start while this round ran armed one already.
          if (this.started && !this.timer) this.arm();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}
