/**
 * Public entry of the scheduler's ACL language: capabilities and shorthand expansion
 * (capabilities.ts), policy parsing (rules.ts), glob matching (glob.ts), the authorizer
 * (authorizer.ts), built-in objects (builtin.ts) and error texts (errors.ts).
 * @module
 */
export * from './authorizer.js';
export * from './builtin.js';
export * from './capabilities.js';
export * from './errors.js';
export * from './glob.js';
export * from './rules.js';
