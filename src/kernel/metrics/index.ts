/**
 * Public entry of the metrics kernel (issue 14 item 7): one registry per service, request
 * metrics, storage and replication metrics, and the formats of the reference products'
 * metrics endpoints. Services import from here.
 * @module
 */
export * from './service-metrics.js';
export * from './go-metrics-json.js';
export * from './format.js';
export * from './http.js';
export * from './store.js';
export * from './replication.js';
export * from './agent.js';
