/**
 * What a client keeps in its `state_dir` across restarts:
 *
 * - `node.json` (mode 0600): the node's `ID` and `SecretID`, so a restarted client is the same
 *   node (the reference keeps `client/client-id` and `secret-id` the same way). The secret
 *   authenticates only this node's own calls, like the agent's state key file beside it.
 * - `tasks.json`: the process group of each running task with its start time (`/proc/<pid>/stat`
 *   field 22), so a restarted client can stop the processes the previous run left: Cairn does
 *   not reattach to them (their output went through pipes to the previous agent process),
 *   it stops them and starts the allocation's tasks again (task-runner.ts, event `Restarting`
 *   with reason `Client agent restarted`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The node's identity. */
export interface NodeIdentity {
  readonly ID: string;
  readonly SecretID: string;
}

/** Reads `state_dir/node.json`, or makes and writes a new identity. */
export function loadNodeIdentity(stateDir: string): NodeIdentity {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, 'node.json');
  try {
    const got = JSON.parse(readFileSync(file, 'utf8')) as NodeIdentity;
    if (typeof got.ID === 'string' && typeof got.SecretID === 'string') return got;
  } catch {
    // Absent or unreadable: a new node.
  }
  const made = { ID: randomUUID(), SecretID: randomUUID() };
  writeAtomic(file, JSON.stringify(made), 0o600);
  return made;
}

/** Makes `identity` the node's identity unless `state_dir/node.json` exists (`cairn dev`: the client is the dev node its CSI plugin serves). */
export function seedNodeIdentity(stateDir: string, identity: NodeIdentity): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, 'node.json');
  if (!existsSync(file)) writeAtomic(file, JSON.stringify({ ID: identity.ID, SecretID: identity.SecretID }), 0o600);
}

/** A recorded task process: process group leader and its start time in clock ticks since boot. */
export interface TaskProcessRecord {
  readonly pid: number;
  readonly startTicks: string;
}

/** The start time of `pid` (`/proc/<pid>/stat` field 22), or undefined when it is gone (or not Linux). */
function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The task processes of `state_dir/tasks.json`, keyed `<alloc id>/<task>`. */
export class TaskProcessFile {
  private readonly file: string;
  private readonly records: Record<string, TaskProcessRecord>;

  constructor(stateDir: string) {
    this.file = join(stateDir, 'tasks.json');
    let records: Record<string, TaskProcessRecord> = {};
    try {
      records = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, TaskProcessRecord>;
    } catch {
      // None recorded.
    }
    this.records = records;
  }

  /** The processes recorded by a previous run that are still alive (same pid and start time). */
  leftovers(): TaskProcessRecord[] {
    return Object.values(this.records).filter((r) => processStartTicks(r.pid) === r.startTicks);
  }

  /** Records (pid) or forgets (undefined) the process of `allocId`/`task`. */
  set(allocId: string, task: string, pid: number | undefined): void {
    const key = `${allocId}/${task}`;
    const ticks = pid === undefined ? undefined : processStartTicks(pid);
    if (pid === undefined || ticks === undefined) delete this.records[key];
    else this.records[key] = { pid, startTicks: ticks };
    writeAtomic(this.file, JSON.stringify(this.records), 0o600);
  }

  /** Forgets every record (after the leftovers were stopped). */
  clear(): void {
    for (const k of Object.keys(this.records)) delete this.records[k];
    writeAtomic(this.file, '{}', 0o600);
  }
}

function writeAtomic(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, file);
}
