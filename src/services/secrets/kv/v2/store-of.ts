/**
 * The one way route handlers reach KV v2 state: the store of the request's mount.
 * @module
 */
import type { SecretsRequest } from '../../types.js';
import { KvV2Store } from './storage.js';

/** The KV v2 store of the request's mount. */
export const kvStore = (req: SecretsRequest): KvV2Store => new KvV2Store(req.storage, req.mount.uuid);
