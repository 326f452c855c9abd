/**
 * Loading a server's configuration file for the commands that start servers.
 * @module
 */
import { UsageError } from './args.js';

/**
 * Runs `load` (a service's config loader); a config error (file, line and key in its
 * message) becomes a {@link UsageError}, so the command exits 2 with that one line.
 * The config kernel is loaded on demand, like the server code, so client commands never load it.
 */
export async function loadServerConfig<T>(load: () => T): Promise<T> {
  const { ConfigError } = await import('../kernel/config/index.js');
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
