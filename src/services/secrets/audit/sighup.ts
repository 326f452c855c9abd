/**
 * `SIGHUP` reopens every file audit device (log rotation: the rotated file is closed, a
 * new one made at `file_path`), as the reference's server does. Installed by the commands
 * that run a secrets server (`cairn secrets server`, `cairn dev`).
 *
 * @module
 */
import type { AuditBroker } from './broker.js';

/** Reopens `broker`'s devices on each SIGHUP; returns the function that stops listening. */
export function reopenOnSighup(broker: AuditBroker): () => void {
  const onHup = () => broker.reopen();
  process.on('SIGHUP', onHup);
  return () => process.off('SIGHUP', onHup);
}
