/**
 * Waiting for the signal that stops a long-running command.
 * @module
 */
import type { App } from './context.js';

/**
 * Resolves on the first SIGINT or SIGTERM, or when `app.io.shutdown` aborts (tests);
 * for the commands that run servers until stopped (`dev`, `secrets server`).
 */
export function waitForShutdown(app: App): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      app.io.shutdown?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (app.io.shutdown?.aborted) stop();
    else app.io.shutdown?.addEventListener('abort', stop);
  });
}
