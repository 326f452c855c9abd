/**
 * Public entry of the HTTP kernel: services import from here, never from a file behind it.
 * @module
 */
export * from './errors.js';
export * from './route.js';
export * from './validate.js';
export * from './server.js';
export * from './connection-limits.js';
export * from './openapi.js';
export * from './fields.js';
export * from './api-route.js';
export * from './api-service.js';
export * from './forward.js';
export * from './json-body.js';
export * from './bearer.js';
export * from './render-cache.js';
export * from './ui.js';
export { BUILT_UI_DIR, UI_CSP } from './ui-files.js';
