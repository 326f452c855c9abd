/**
 * Every path of the KV version 2 engine, in match order (STYLE.md: the route table
 * fits on one screen).
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { configPath, subkeysPath } from './config.routes.js';
import { dataPath } from './data.routes.js';
import { fallbackPath } from './fallback.routes.js';
import { metadataPath } from './metadata.routes.js';
import { versionPaths } from './versions.routes.js';

/** KV v2's route table; the fallback must stay last. */
export const kvV2Paths: readonly SecretsPath[] = [configPath, dataPath, ...versionPaths, metadataPath, subkeysPath, fallbackPath];
