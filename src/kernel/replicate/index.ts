/**
 * Public entry of the replication kernel (DESIGN.md "Growing past one machine"): pull loops
 * with rate limit and backoff, a blocking HTTP read of the source, and a table mirror.
 * Services import from here, never from a file behind it.
 * @module
 */
export * from './loops.js';
export * from './mirror.js';
export * from './pull.js';
