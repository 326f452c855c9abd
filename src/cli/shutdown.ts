/**
 * Waiting for the signal that stops a long-running command.
 * @module
 */
import type { App, CliIo } from './context.js';

/** An abort signal for commands that run until interrupted, and the way to stop listening. */
export interface Interruption {
  /** Aborts on the first SIGINT or SIGTERM, or when `io.shutdown` aborts. */
  readonly signal: AbortSignal;
  /** Removes the signal and shutdown listeners (call it when the command ends). */
  dispose(): void;
}

/**
 * Listens for SIGINT/SIGTERM and `io.shutdown` (tests) until disposed; see {@link Interruption}.
 * For the client commands that run until interrupted (`sched event stream`, an OIDC login).
 */
export function interruption(io: CliIo): Interruption {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (io.shutdown?.aborted) stop();
  else io.shutdown?.addEventListener('abort', stop);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.shutdown?.removeEventListener('abort', stop);
    },
  };
}

/**
 * Resolves on the first SIGINT or SIGTERM, or when `app.io.shutdown` aborts (tests), having
 * stopped listening; for the commands that run servers until stopped (`dev`, `secrets server`, …).
 */
export async function waitForShutdown(app: App): Promise<void> {
  const stop = interruption(app.io);
  try {
    if (!stop.signal.aborted) await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
  } finally {
    stop.dispose();
  }
}
