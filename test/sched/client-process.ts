/**
 * A client-only `cairn sched agent` as its own process (what an operator runs on each node),
 * for the end-to-end suites whose tasks register services or log in: raw_exec on, its
 * servers and token, optionally its own dynamic port range on `lo` and a `consul` block.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCairnProcess, type ServerProcess } from '../processes.js';

/** What {@link startClientProcess} writes into the agent's file. */
export interface ClientProcessOptions {
  /** The agent's folder is `<root>/<dir ?? name>` (its data directory and `agent.hcl`). */
  readonly root: string;
  readonly name: string;
  /** The folder under `root`, when not `name`. */
  readonly dir?: string;
  /** A server's API URL. */
  readonly serverUrl: string;
  /** The client's scheduler token. */
  readonly token: string;
  /** `[min, max]` of the dynamic ports it hands out, on `lo`; absent: the defaults. */
  readonly ports?: readonly [number, number];
  /** The keys of its `consul` block (address, token, task_auth_method, …); absent: no block. */
  readonly consul?: Readonly<Record<string, string>>;
}

/** Starts (or restarts, on the same data directory) the agent; resolves once it listens. */
export async function startClientProcess(o: ClientProcessOptions): Promise<ServerProcess> {
  const dir = join(o.root, o.dir ?? o.name);
  mkdirSync(dir, { recursive: true });
  const client = ['  enabled = true', `  servers = ["${new URL(o.serverUrl).host}"]`, `  token = "${o.token}"`];
  if (o.ports) client.push('  network_interface = "lo"', `  min_dynamic_port = ${o.ports[0]}`, `  max_dynamic_port = ${o.ports[1]}`);
  const hcl = [
    `data_dir = "${dir}/data"`,
    `name = "${o.name}"`,
    'ports { http = 0 }',
    `client {\n${client.join('\n')}\n}`,
    'plugin "raw_exec" {\n  config { enabled = true }\n}',
    ...(o.consul
      ? [
          `consul {\n${Object.entries(o.consul)
            .map(([k, v]) => `  ${k} = "${v}"`)
            .join('\n')}\n}`,
        ]
      : []),
  ].join('\n');
  writeFileSync(join(dir, 'agent.hcl'), hcl);
  return startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, 'scheduler client-only agent listening');
}
