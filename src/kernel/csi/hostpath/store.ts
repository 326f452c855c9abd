/**
 * The hostpath plugin's state, all on disk under `root` so that a restarted plugin (or
 * several plugins sharing one root, one per node) sees the same volumes:
 *
 * ```
 * root/volumes/vol-<32 hex>/        a volume: a plain directory
 * root/volumes/vol-<32 hex>.json    its sidecar (VolumeRecord)
 * root/snapshots/snap-<32 hex>/     a snapshot: a copy of its source volume
 * root/snapshots/snap-<32 hex>.json its sidecar (SnapshotRecord)
 * root/nodes/node-<node id>.json    one node plugin's bookkeeping (NodeRecord; ID URI-encoded)
 * ```
 *
 * IDs come from the name given to `CreateVolume`/`CreateSnapshot` (a SHA-256 prefix), so
 * idempotency by name is one file lookup; an ID of any other shape names nothing (and so
 * can never be a path outside `root`). A sidecar is written after its directory and
 * removed before it, by rename, so a half-made volume never shows.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CsiAccessMode, Topology } from '../types.js';

/** The topology key of hostpath volumes and nodes: `{ "topology.cairn.dev/node": nodeId }`. */
export const TOPOLOGY_KEY = 'topology.cairn.dev/node';

/** How a volume is controller-published to one node. */
interface PublishRecord {
  readonly readonly: boolean;
  readonly accessMode: CsiAccessMode;
}

/** A volume's sidecar. */
export interface VolumeRecord {
  readonly volumeId: string;
  readonly name: string;
  /** Bytes (nominal: a directory has no size limit). */
  capacityBytes: number;
  readonly parameters: Readonly<Record<string, string>>;
  readonly volumeContext: Readonly<Record<string, string>>;
  readonly contentSource?: { readonly snapshotId?: string; readonly volumeId?: string };
  readonly accessibleTopology: readonly Topology[];
  /** Node ID → publication, from ControllerPublishVolume. */
  published: Record<string, PublishRecord>;
}

/** A snapshot's sidecar. */
export interface SnapshotRecord {
  readonly snapshotId: string;
  readonly name: string;
  readonly sourceVolumeId: string;
  /** Bytes: the source volume's capacity when it was taken. */
  readonly sizeBytes: number;
  /** Unix seconds and nanoseconds. */
  readonly creationTime: { readonly seconds: number; readonly nanos: number };
  readonly parameters: Readonly<Record<string, string>>;
}

/** A volume staged on a node (NodeStageVolume). */
interface StagedRecord {
  readonly stagingPath: string;
  readonly accessMode: CsiAccessMode;
}

/** A volume published at a target path on a node (NodePublishVolume). */
interface NodePublishRecord {
  readonly volumeId: string;
  readonly readonly: boolean;
  readonly stagingPath: string;
}

/** One node plugin's bookkeeping. */
export interface NodeRecord {
  readonly nodeId: string;
  /** 0 = no limit. */
  maxVolumesPerNode: number;
  /** Volume ID → staging. */
  staged: Record<string, StagedRecord>;
  /** Target path → publication. */
  published: Record<string, NodePublishRecord>;
}

const VOLUME_ID = /^vol-[0-9a-f]{32}$/;
const SNAPSHOT_ID = /^snap-[0-9a-f]{32}$/;
const digest = (kind: string, name: string) => createHash('sha256').update(`${kind}\0${name}`).digest('hex').slice(0, 32);

let tmpSeq = 0;

/** Writes `value` as JSON to `file` through a temporary file and a rename. */
async function writeJson(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.${++tmpSeq}.tmp`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
  await rename(tmp, file);
}

/** The parsed JSON of `file`, or undefined when it does not exist. */
async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The disk state of one hostpath root. Mutations are serialised with {@link HostpathStore.locked}. */
export class HostpathStore {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly volumes: string;
  private readonly snapshots: string;
  private readonly nodes: string;

  /** @param root Absolute directory holding everything (created by {@link init}). */
  constructor(readonly root: string) {
    this.volumes = join(root, 'volumes');
    this.snapshots = join(root, 'snapshots');
    this.nodes = join(root, 'nodes');
  }

  /** Creates the root and its three folders when missing. */
  async init(): Promise<void> {
    for (const dir of [this.volumes, this.snapshots, this.nodes]) await mkdir(dir, { recursive: true });
  }

  /** Runs `fn` after every earlier locked call has settled (one mutation at a time in this process). */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The volume ID of the volume named `name`. */
  static volumeIdFor(name: string): string {
    return `vol-${digest('volume', name)}`;
  }

  /** The snapshot ID of the snapshot named `name`. */
  static snapshotIdFor(name: string): string {
    return `snap-${digest('snapshot', name)}`;
  }

  /** The directory of volume `id` (which must be a valid ID). */
  volumeDir(id: string): string {
    return join(this.volumes, id);
  }

  /** The directory of snapshot `id` (which must be a valid ID). */
  snapshotDir(id: string): string {
    return join(this.snapshots, id);
  }

  /** Volume `id`, or undefined when there is none (or `id` is not a volume ID). */
  async getVolume(id: string): Promise<VolumeRecord | undefined> {
    return VOLUME_ID.test(id) ? readJson<VolumeRecord>(join(this.volumes, `${id}.json`)) : undefined;
  }

  /** Writes a volume's sidecar. */
  async putVolume(v: VolumeRecord): Promise<void> {
    await writeJson(join(this.volumes, `${v.volumeId}.json`), v);
  }

  /** Removes a volume: sidecar first, then its directory. */
  async removeVolume(id: string): Promise<void> {
    await rm(join(this.volumes, `${id}.json`), { force: true });
    await rm(this.volumeDir(id), { recursive: true, force: true });
  }

  /** Every volume, by volume ID. */
  async listVolumes(): Promise<VolumeRecord[]> {
    return this.listJson<VolumeRecord>(this.volumes, VOLUME_ID);
  }

  /** Snapshot `id`, or undefined when there is none (or `id` is not a snapshot ID). */
  async getSnapshot(id: string): Promise<SnapshotRecord | undefined> {
    return SNAPSHOT_ID.test(id) ? readJson<SnapshotRecord>(join(this.snapshots, `${id}.json`)) : undefined;
  }

  /** Writes a snapshot's sidecar. */
  async putSnapshot(s: SnapshotRecord): Promise<void> {
    await writeJson(join(this.snapshots, `${s.snapshotId}.json`), s);
  }

  /** Removes a snapshot: sidecar first, then its directory. */
  async removeSnapshot(id: string): Promise<void> {
    await rm(join(this.snapshots, `${id}.json`), { force: true });
    await rm(this.snapshotDir(id), { recursive: true, force: true });
  }

  /** Every snapshot, by snapshot ID. */
  async listSnapshots(): Promise<SnapshotRecord[]> {
    return this.listJson<SnapshotRecord>(this.snapshots, SNAPSHOT_ID);
  }

  /** Replaces directory `to` by a copy of directory `from` (symlinks copied as links). */
  async copyTree(from: string, to: string): Promise<void> {
    await rm(to, { recursive: true, force: true });
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
  }

  /** The bookkeeping of node `nodeId`, or undefined for a node never started on this root. */
  async getNode(nodeId: string): Promise<NodeRecord | undefined> {
    return readJson<NodeRecord>(this.nodeFile(nodeId));
  }

  /** Writes a node's bookkeeping. */
  async putNode(n: NodeRecord): Promise<void> {
    await writeJson(this.nodeFile(n.nodeId), n);
  }

  /** Every node's bookkeeping. */
  async listNodes(): Promise<NodeRecord[]> {
    const names = (await readdir(this.nodes)).filter((n) => n.endsWith('.json'));
    const nodes = await Promise.all(names.map((n) => readJson<NodeRecord>(join(this.nodes, n))));
    return nodes.filter((n): n is NodeRecord => n !== undefined);
  }

  /** Bytes free to an unprivileged user on the filesystem of `root`. */
  async availableBytes(): Promise<number> {
    const s = await statfs(this.root);
    return s.bavail * s.bsize;
  }

  private nodeFile(nodeId: string): string {
    // encodeURIComponent leaves no '/', and the prefix keeps "." and ".." harmless.
    return join(this.nodes, `node-${encodeURIComponent(nodeId)}.json`);
  }

  private async listJson<T>(dir: string, id: RegExp): Promise<T[]> {
    const ids = (await readdir(dir))
      .filter((n) => n.endsWith('.json') && id.test(n.slice(0, -5)))
      .map((n) => n.slice(0, -5))
      .sort();
    const records = await Promise.all(ids.map((i) => readJson<T>(join(dir, `${i}.json`))));
    return records.filter((r): r is Awaited<T> => r !== undefined) as T[];
  }
}
