/**
 * Public entry of the config kernel: services import from here, never from a file behind it.
 * Config files (HCL v1 or JSON) validated against declared schemas: `loadConfigFile`,
 * `parseConfig`, the `cfg` field builders, `ConfigError`; and `parseHcl` itself.
 * @module
 */
export * from './load.js';
export * from './schema.js';
export { HclSyntaxError, parseHcl } from './hcl.js';
export { checkDocumentBounds } from './bounds.js';
export { resolveSecretRef, type ConfigEnv } from './secret-ref.js';
export * from './storage.js';
export * from './listener-limits.js';
export * from './ui-services.js';
