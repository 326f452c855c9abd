/**
 * Volume claims (reference/sched.md §4.4): which volumes an allocation claims and how, the
 * claim limits of each access mode, and release. Pure: the caller reads the volume and its
 * plugin's health and stores the result (csi/alloc-claims.ts).
 *
 * Limits (the reference's `HasFreeReadClaims` / `HasFreeWriteClaims`, by the volume's current
 * access mode, or the claim's when the volume has none): `single-node-reader-only` takes one
 * read claim; `single-node-writer` one claim of either kind; `single-node-single-writer` and
 * `multi-node-single-writer` one write claim and any number of reads; the other modes any
 * number. Reader-only modes take no write claim.
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import { schedBadRequest } from '../http.js';
import type { VolumeRequest } from '../jobs/types.js';
import type { VolumeHealth } from './plugin-doc.js';
import { liveClaims, volumeKey, type ClaimDoc, type ClaimMode, type CsiVolumeDoc } from './volume.js';

/** One volume an allocation claims. */
export interface ClaimRequest {
  /** The volume's `csi-volumes` key. */
  readonly key: string;
  /** The volume ID (`Source`, with `[<alloc index>]` for `PerAlloc`). */
  readonly volumeId: string;
  /** `write` unless every request of the allocation for this volume is `ReadOnly`. */
  readonly mode: ClaimMode;
  readonly accessMode: string;
  readonly attachmentMode: string;
}

/** The allocation index in a name like `web.app[3]` (the reference's `Allocation.Index`); 0 when none. */
export function allocIndex(name: string): number {
  const m = /\[(\d+)\]$/.exec(name);
  return m ? Number(m[1]) : 0;
}

/**
 * The CSI volumes an allocation claims, one per volume (reference/sched.md §5: `Source`, with
 * `PerAlloc` the `[<index>]` suffix; a read claim for `ReadOnly`, else a write claim), in key order.
 */
export function claimRequests(alloc: { Namespace: string; Name: string; Volumes: Readonly<Record<string, unknown>> | null }): ClaimRequest[] {
  const byKey = new Map<string, ClaimRequest>();
  for (const r of Object.values((alloc.Volumes ?? {}) as Record<string, VolumeRequest>)) {
    if (r.Type !== 'csi') continue;
    const volumeId = r.PerAlloc ? `${r.Source}[${allocIndex(alloc.Name)}]` : r.Source;
    const key = volumeKey(alloc.Namespace, volumeId);
    const mode: ClaimMode = r.ReadOnly ? 'read' : 'write';
    const seen = byKey.get(key);
    if (!seen || (seen.mode === 'read' && mode === 'write'))
      byKey.set(key, { key, volumeId, mode, accessMode: r.AccessMode, attachmentMode: r.AttachmentMode });
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

const conflict = (text: string) => new CairnError('conflict', text);
const SINGLE_WRITER = new Set(['single-node-writer', 'single-node-single-writer', 'multi-node-single-writer']);

/** Why `claim` cannot be taken on `v` now, or undefined when it can. */
function refusal(v: CsiVolumeDoc, claim: ClaimDoc, health: VolumeHealth): CairnError | undefined {
  if (!v.RequestedCapabilities.some((c) => c.AccessMode === claim.AccessMode && c.AttachmentMode === claim.AttachmentMode)) {
    return schedBadRequest(`volume does not support access mode "${claim.AccessMode}" with attachment mode "${claim.AttachmentMode}"`);
  }
  if (!health.Schedulable) return conflict('volume is currently unschedulable');
  if (v.AttachmentMode !== '' && claim.AttachmentMode !== v.AttachmentMode) return conflict('cannot change attachment mode of claimed volume');
  if (v.AccessMode !== '' && claim.AccessMode !== v.AccessMode) return conflict('cannot change access mode of claimed volume');
  const mode = v.AccessMode || claim.AccessMode;
  const reads = Object.keys(v.ReadClaims).length;
  const writes = Object.keys(v.WriteClaims).length;
  if (claim.Mode === 'read') {
    const free = mode === 'single-node-reader-only' ? reads === 0 : mode === 'single-node-writer' ? reads + writes === 0 : true;
    return free ? undefined : conflict('volume max claims reached');
  }
  if (mode.endsWith('reader-only')) return schedBadRequest(`volume access mode "${mode}" takes no write claims`);
  if (SINGLE_WRITER.has(mode) && (writes > 0 || (mode === 'single-node-writer' && reads > 0))) return conflict('volume max claims reached');
  return undefined;
}

/**
 * `v` with `claim` taken (reference/sched.md §4.4 "Claim"): idempotent when the allocation
 * already holds a claim of that kind; the volume's access and attachment modes are set from
 * the first claim; a past claim of the allocation is dropped.
 * @throws {CairnError} `alloc "<a>" failed to claim volume "<v>": <why>` — 400 `volume does
 *   not support access mode "<m>" with attachment mode "<m>"` (not among its requested
 *   capabilities), `volume access mode "<m>" takes no write claims`; 409 `volume is currently
 *   unschedulable`, `cannot change attachment mode of claimed volume`, `cannot change access
 *   mode of claimed volume`, `volume max claims reached`.
 */
export function claimVolume(v: CsiVolumeDoc, claim: ClaimDoc, health: VolumeHealth): CsiVolumeDoc {
  const held = claim.Mode === 'read' ? v.ReadClaims : v.WriteClaims;
  if (held[claim.AllocationID]) return v;
  const why = refusal(v, claim, health);
  if (why) throw new CairnError(why.code, `alloc "${claim.AllocationID}" failed to claim volume "${v.ID}": ${why.message}`);
  const { [claim.AllocationID]: _past, ...past } = v.PastClaims;
  return {
    ...v,
    ReadClaims: claim.Mode === 'read' ? { ...v.ReadClaims, [claim.AllocationID]: claim } : v.ReadClaims,
    WriteClaims: claim.Mode === 'write' ? { ...v.WriteClaims, [claim.AllocationID]: claim } : v.WriteClaims,
    PastClaims: past,
    AccessMode: v.AccessMode || claim.AccessMode,
    AttachmentMode: v.AttachmentMode || claim.AttachmentMode,
  };
}

/**
 * `v` without the live claim of allocation `allocId` (reference/sched.md §4.4 "Release");
 * with `unpublish` it is kept in `PastClaims` as `unpublishing` until the controller
 * unpublish succeeds. The access and attachment modes reset once no live claim is left.
 */
export function releaseClaim(v: CsiVolumeDoc, allocId: string, unpublish: boolean): CsiVolumeDoc {
  const claim = v.ReadClaims[allocId] ?? v.WriteClaims[allocId];
  if (!claim) return v;
  const { [allocId]: _r, ...reads } = v.ReadClaims;
  const { [allocId]: _w, ...writes } = v.WriteClaims;
  const idle = Object.keys(reads).length + Object.keys(writes).length === 0;
  return {
    ...v,
    ReadClaims: reads,
    WriteClaims: writes,
    PastClaims: unpublish ? { ...v.PastClaims, [allocId]: { ...claim, State: 'unpublishing' } } : v.PastClaims,
    AccessMode: idle ? '' : v.AccessMode,
    AttachmentMode: idle ? '' : v.AttachmentMode,
  };
}

/** `v` without the past claims of `allocIds` (their unpublish finished). */
export function dropPastClaims(v: CsiVolumeDoc, allocIds: readonly string[]): CsiVolumeDoc {
  return { ...v, PastClaims: Object.fromEntries(Object.entries(v.PastClaims).filter(([id]) => !allocIds.includes(id))) };
}

/** Does a live claim other than `exceptAlloc`'s hold `v` on scheduler node `nodeId`? (Then it stays published there.) */
export function claimedOnNode(v: CsiVolumeDoc, nodeId: string, exceptAlloc?: string): boolean {
  return liveClaims(v).some((c) => c.NodeID === nodeId && c.AllocationID !== exceptAlloc);
}
