/**
 * Public entry of the Cairn SDK: typed clients for Cairn's services. Imports nothing
 * from the rest of the project.
 *
 * @module
 */
export * from './secrets.js';
export * from './gateway.js';
export * from './mesh.js';
export * from './sched.js';
