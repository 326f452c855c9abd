/**
 * Where a task's templates get their data (issue 27 scope 5): one watch per dependency
 * (sched/template/dependency.ts), kept for as long as a template uses it. Discovery data is
 * watched with blocking queries; a leased secret is renewed and re-read before its lease
 * ends, other secrets are re-read on a timer. A failing source is retried with a backoff for
 * as long as the watch lasts and never gives up: the template keeps its last data.
 *
 * @module
 */
import type { Dependency } from '../../template/dependency.js';

/** What a watch reports. */
export interface DependencyListener {
  /** The dependency's value (the shape dependency.ts gives per kind), on the first fetch, each time it changes, and on the first fetch after a failed attempt (the source is back). */
  value(v: unknown): void;
  /** A failed attempt (the source is unreachable, refused the token, …); the watch retries by itself. */
  error(err: Error): void;
}

/** Watches dependencies for one task's templates (module doc). */
export interface TemplateSource {
  /** Starts watching `d`; returns the function that stops the watch. */
  watch(d: Dependency, listener: DependencyListener): () => void;
}
