/**
 * The allocations group of `SchedClient` (reference/sched-workloads.md "Allocations",
 * "Client agent"): allocations with their task states, a node's allocations, stop, and the
 * client endpoints (logs, files, restart, signal), as `SchedClient.allocations`:
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);
 * const { data: alloc } = await sched.allocations.readAllocation(id);
 * for await (const frame of sched.allocations.allocationLogs(id, { task: 'web', follow: true, signal })) process.stdout.write(frame.Data);
 * await sched.allocations.restartAllocation(id, { taskName: 'web' });
 * ```
 *
 * Every method rejects with `SchedApiError` on a status ≥ 400 and `SchedConnectionError` when
 * the service cannot be reached.
 *
 * @module
 */
import type { SchedQueryOptions, SchedRead } from './sched-types.js';
import { BLOCKING_EXTRA_MS, type SchedCall, type SchedStreamGet } from './sched-call.js';

const seg = encodeURIComponent;

/** One task event (the reference's `TaskEvent`); `Time` in Unix ns. */
export interface SchedTaskEvent {
  readonly Type: string;
  readonly Time: number;
  readonly Message: string;
  readonly DisplayMessage: string;
  readonly Details: Readonly<Record<string, string>>;
  readonly ExitCode: number;
  readonly Signal: number;
  readonly RestartReason: string;
  readonly KillTimeout: number;
  readonly DriverError: string;
  readonly FailsTask: boolean;
}

/** A task's state on its client; times RFC 3339 or null. */
export interface SchedTaskState {
  readonly State: string;
  readonly Failed: boolean;
  readonly Restarts: number;
  readonly LastRestart: string | null;
  readonly StartedAt: string | null;
  readonly FinishedAt: string | null;
  readonly Events: readonly SchedTaskEvent[];
  /** Cairn's extension: the task's templates as its client last rendered them (never their content). */
  readonly Templates?: readonly SchedTemplateState[];
  /** Cairn's extension: the task's workload identities as last fetched (never their tokens). */
  readonly Identities?: readonly SchedIdentityState[];
}

/** A template's state on the client: `waiting` for its first data, `rendered`, or `stale` (a source failing; the last render stays). */
export interface SchedTemplateState {
  readonly DestPath: string;
  readonly State: 'waiting' | 'rendered' | 'stale';
  /** What it waits for (`secret.read(secret/data/web)`), or what a stale one cannot reach. */
  readonly Missing: readonly string[];
  /** RFC 3339 of the last render that changed its output; null before the first. */
  readonly LastRendered: string | null;
  readonly Error?: string;
}

/** A workload identity's state on the client: expiry (RFC 3339, null: none) and last fetch. */
export interface SchedIdentityState {
  readonly Name: string;
  readonly Expiration: string | null;
  readonly FetchedAt: string;
}

/** A port given to an allocation (`AllocatedResources.Shared.Ports[]`): `Value` the host port, `To` the mapped one (0: none), `HostIP` its address. */
export interface SchedPortMapping {
  readonly Label: string;
  readonly Value: number;
  readonly To: number;
  readonly HostIP: string;
}

/** An allocation as `GET /v1/allocation/:id` shows it (the fields most callers use; `Job` is the job snapshot). */
export interface SchedAllocation {
  readonly ID: string;
  readonly Namespace: string;
  readonly EvalID: string;
  readonly Name: string;
  readonly NodeID: string;
  readonly NodeName: string;
  readonly JobID: string;
  readonly Job: {
    readonly ID: string;
    readonly Version?: number;
    readonly Type?: string;
    readonly TaskGroups: readonly {
      readonly Name: string;
      readonly Tasks: readonly { readonly Name: string }[];
      /** The group network's ports asked for: static (`ReservedPorts`) and dynamic. */
      readonly Networks?: readonly {
        readonly ReservedPorts: readonly { readonly Label: string }[] | null;
        readonly DynamicPorts: readonly { readonly Label: string }[] | null;
      }[];
    }[];
  } | null;
  /** What the scheduler set aside; `Shared.Ports` are the group network's ports (absent without a network). */
  readonly AllocatedResources?: { readonly Shared: { readonly DiskMB: number; readonly Ports?: readonly SchedPortMapping[] | null } } | null;
  readonly TaskGroup: string;
  readonly DesiredStatus: string;
  readonly DesiredDescription: string;
  readonly ClientStatus: string;
  readonly ClientDescription: string;
  readonly TaskStates: Readonly<Record<string, SchedTaskState>> | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** An allocation list item (`GET /v1/allocations`). */
export interface SchedAllocationStub {
  readonly ID: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly NodeID: string;
  readonly JobID: string;
  readonly TaskGroup: string;
  readonly DesiredStatus: string;
  readonly ClientStatus: string;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/**
 * The answer of {@link SchedAllocApi.acquireRestartPermit}: granted until `ExpiresAt` (RFC 3339),
 * or refused with `RetryAfterMs` (ms, at most 5000) and the group's holders and limit.
 */
export type SchedRestartPermit =
  | { readonly Granted: true; readonly ExpiresAt: string }
  | { readonly Granted: false; readonly RetryAfterMs: number; readonly Holders: number; readonly Limit: number };

/** A directory entry of `GET /v1/client/fs/ls/:alloc`. */
export interface SchedAllocFile {
  readonly Name: string;
  readonly IsDir: boolean;
  readonly Size: number;
  readonly FileMode: string;
  readonly ModTime: string;
}

/** One log frame: `Data` (decoded), the log file it came from, and the end of `Data` in it. */
export interface SchedLogFrame {
  readonly Data: Buffer;
  readonly File: string;
  readonly Offset: number;
}

/** Options of {@link SchedAllocApi.allocationLogs}. */
export interface SchedLogOptions {
  readonly task: string;
  /** Default `stdout`. */
  readonly type?: 'stdout' | 'stderr';
  /** Keep reading what the task writes later, until the task is dead or `signal` aborts. */
  readonly follow?: boolean;
  /** Bytes from `origin` (default 0). */
  readonly offset?: number;
  /** Default `start`. */
  readonly origin?: 'start' | 'end';
  readonly signal?: AbortSignal;
}

/** The allocation and client methods of `SchedClient.allocations` (see the module doc). */
export class SchedAllocApi {
  /** `call` and `streamGet` reach the service (`SchedClient`). */
  constructor(
    private readonly call: SchedCall,
    private readonly streamGet: SchedStreamGet,
  ) {}

  /** `GET /v1/allocations?prefix=` (`namespace:read-job`): allocation stubs. */
  async listAllocations(o: { prefix?: string; namespace?: string } = {}): Promise<SchedAllocationStub[]> {
    return (
      (await this.call<SchedAllocationStub[] | null>('GET', '/allocations', { query: { prefix: o.prefix || undefined, namespace: o.namespace } })).data ?? []
    );
  }

  /** `GET /v1/allocation/:id` (`namespace:read-job`): the allocation with its job and task states. @throws SchedApiError 404 `alloc not found`. */
  async readAllocation(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAllocation>> {
    const r = await this.call<SchedAllocation>('GET', `/allocation/${seg(id)}`, {
      query: { index: o.index, wait: o.wait },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data, index: r.index };
  }

  /** `GET /v1/node/:id/allocations` (`node:read`, or the node's secret): the node's allocations in full. */
  async listNodeAllocations(nodeId: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAllocation[]>> {
    const r = await this.call<SchedAllocation[] | null>('GET', `/node/${seg(nodeId)}/allocations`, {
      query: { index: o.index, wait: o.wait },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data ?? [], index: r.index };
  }

  /** `POST /v1/allocation/:id/stop` (`namespace:alloc-lifecycle`): `{EvalID, Index}`. */
  async stopAllocation(id: string): Promise<{ EvalID: string; Index: number }> {
    return (await this.call<{ EvalID: string; Index: number }>('POST', `/allocation/${seg(id)}/stop`, { body: {} })).data;
  }

  /** `POST /v1/client/allocation/:id/restart` (`namespace:alloc-lifecycle`): restarts `taskName`, or every task. @throws SchedApiError 400 when not running. */
  async restartAllocation(id: string, o: { taskName?: string; allTasks?: boolean } = {}): Promise<void> {
    await this.call('POST', `/client/allocation/${seg(id)}/restart`, { body: { TaskName: o.taskName ?? '', AllTasks: o.allTasks ?? false } });
  }

  /** `POST /v1/client/allocation/:id/signal` (`namespace:alloc-lifecycle`): `signal` (default SIGKILL) to `task`, or every task. */
  async signalAllocation(id: string, o: { signal?: string; task?: string } = {}): Promise<void> {
    await this.call('POST', `/client/allocation/${seg(id)}/signal`, { body: { Signal: o.signal ?? '', Task: o.task ?? '' } });
  }

  /**
   * `PUT /v1/allocation/:id/restart-permit` (the allocation's node secret; Cairn extension): takes, or renews, one of
   * the job-wide template restart permits of the allocation's task group (at most the job's `update.max_parallel`
   * held at once; each lasts 60 s unless released). @throws SchedApiError 404 `alloc not found`; 400 `alloc is terminal`; 403.
   */
  async acquireRestartPermit(id: string): Promise<SchedRestartPermit> {
    return (await this.call<SchedRestartPermit>('PUT', `/allocation/${seg(id)}/restart-permit`)).data;
  }

  /** `DELETE /v1/allocation/:id/restart-permit` (the allocation's node secret): releases its permit; idempotent. @throws SchedApiError 404; 403. */
  async releaseRestartPermit(id: string): Promise<void> {
    await this.call('DELETE', `/allocation/${seg(id)}/restart-permit`);
  }

  /** `GET /v1/client/fs/ls/:alloc?path=` (`namespace:read-fs`). @throws SchedApiError 400 for a path out of the allocation directory; 404. */
  async listAllocationFiles(id: string, path = '/'): Promise<SchedAllocFile[]> {
    return (await this.call<SchedAllocFile[]>('GET', `/client/fs/ls/${seg(id)}`, { query: { path } })).data;
  }

  /** `GET /v1/client/fs/cat/:alloc?path=` (`namespace:read-fs`): the file's bytes. @throws as {@link listAllocationFiles}. */
  async readAllocationFile(id: string, path: string, signal?: AbortSignal): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of this.streamGet(`/client/fs/cat/${seg(id)}`, { path }, signal)) chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  }

  /**
   * `GET /v1/client/fs/logs/:alloc` (`namespace:read-logs`): the task's log as frames, across
   * rotated files; with `follow`, until the task is dead or `signal` aborts (then it ends quietly).
   */
  async *allocationLogs(id: string, o: SchedLogOptions): AsyncGenerator<SchedLogFrame, void> {
    const query = { task: o.task, type: o.type ?? 'stdout', follow: o.follow ? 'true' : undefined, offset: o.offset, origin: o.origin };
    let pending = '';
    try {
      for await (const chunk of this.streamGet(`/client/fs/logs/${seg(id)}`, query, o.signal)) {
        pending += Buffer.from(chunk).toString('latin1');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.trim() === '') continue;
          const f = JSON.parse(line) as { Data?: string; File: string; Offset: number };
          yield { Data: Buffer.from(f.Data ?? '', 'base64'), File: f.File, Offset: f.Offset };
        }
      }
    } catch (err) {
      if (o.signal?.aborted) return;
      throw err;
    }
  }
}
