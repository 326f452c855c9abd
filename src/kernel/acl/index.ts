/**
 * Public entry of the ACL kernel: token resolution shared by the discovery service's and
 * the scheduler's ACL systems.
 * @module
 */
export * from './token-resolver.js';
