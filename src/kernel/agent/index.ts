/**
 * Public entry of the agent kernel: the start-up and shutdown sequence of the services
 * that run as agents on a shared state (discovery, scheduler).
 * @module
 */
export * from './start.js';
