/**
 * Structured logging (pino). One logger per process, children per service. Nothing
 * secret is ever passed to it: request logs carry method, path, status and request id,
 * never bodies, tokens or headers.
 *
 * @module
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Log levels accepted by `log_level` and `-log-level`. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** A JSON-lines logger writing to stderr at `level`. */
export function createLogger(level: LogLevel = 'info'): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
