/**
 * Public entry of the discovery service's ACL language: rules parsing (rules.ts), the
 * authorizer (authorizer.ts), identity policies (identities.ts), permission errors
 * (errors.ts), built-in objects (builtin.ts) and content hashes (hash.ts).
 * @module
 */
export * from './authorizer.js';
export * from './builtin.js';
export * from './errors.js';
export * from './hash.js';
export * from './identities.js';
export * from './rules.js';
