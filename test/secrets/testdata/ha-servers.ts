/**
 * Test resources for the secrets HA suites (ha-postgres.test.ts, ha-perf-standby.test.ts):
 * real `cairn secrets server` processes from an HCL file (test/processes.ts), and polling
 * with a deadline.
 */
import { startCairnProcess, until, type ServerProcess } from '../../processes.js';

export { until };

/** A running server process and its first listener's URL. */
export type Running = ServerProcess;

/** Starts a server and waits for its listener's URL in the log (rejects with the log when it exits first). */
export function startServer(config: string, env: Record<string, string>): Promise<Running> {
  return startCairnProcess(['secrets', 'server', `-config=${config}`], env, 'secrets service listening');
}

/** `kill -9` of every server still running, waiting for each to exit. */
export async function killAll(servers: readonly Running[]): Promise<void> {
  for (const s of servers) await s.kill();
}

/** The status of `GET sys/health` (with `query`, e.g. `?standbyok=true`). */
export const healthStatus = async (url: string, query = '') => (await fetch(`${url}/v1/sys/health${query}`)).status;
