/**
 * `sys/remount`: moves a secrets engine to another path within the namespace, and
 * `sys/remount/status/:migration_id` reports how the move went (the reference's
 * `/sys/remount` API, Vault ≥ 1.10; `vault secrets move`). Both need `sudo` (policy/acl.ts
 * root-protected paths).
 *
 * The mount keeps its uuid, so its data and configuration move with it; the leases of the
 * old path are revoked first, as the reference does. The move is done before the answer,
 * so the status is already `success`; statuses are stored for a day (mounts/migrations.ts),
 * so every server of an HA cluster answers them.
 *
 * Errors (400): `from` or `to` missing (`both 'from' and 'to' path must be specified as a
 * string`); the errors of `MountTable.remount`; a `to` whose first segment is a child
 * namespace; an unknown migration id (`no migration found for id <id>`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import { readMigration, recordMigration } from '../mounts/migrations.js';
import { normalizeMountPath } from '../mounts/table.js';
import { checkMountNotShadowed } from '../namespace/shadowing.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';

/**
 * `POST sys/remount {from, to}` → `{migration_id}` (also at the top level, as the reference).
 * @throws 400: see the module doc.
 */
async function remount(req: SecretsRequest): Promise<SecretsResult> {
  const from = typeof req.data.from === 'string' ? req.data.from.trim() : '';
  const to = typeof req.data.to === 'string' ? req.data.to.trim() : '';
  if (from === '' || to === '') throw badRequest("both 'from' and 'to' path must be specified as a string");
  checkMountNotShadowed(req.core.namespaces, req.ns.entry, to);
  const nsId = req.ns.entry.id;
  const moved = await req.ns.mounts.remount(from, to, async (entry) => {
    // Synchronously, through the engine: a lease the engine cannot revoke stops the move.
    await req.core.leases.revokePrefix(nsId, entry.path, { sync: true, force: false });
  });
  const id = randomUUID();
  const info = { source_mount: req.ns.path + normalizeMountPath(from), target_mount: req.ns.path + moved.path, status: 'success' } as const;
  await recordMigration(req.core.backend, id, info, req.now.getTime());
  req.core.log.info({ from: info.source_mount, to: info.target_mount, migration_id: id }, 'secrets engine moved');
  return { data: { migration_id: id }, topLevel: true };
}

/** `GET sys/remount/status/:migration_id` → `{migration_id, migration_info}`. @throws 400 for an unknown id. */
async function status(req: SecretsRequest): Promise<SecretsResult> {
  const id = req.params.migration_id;
  const info = await readMigration(req.core.backend, id, req.now.getTime());
  if (!info) throw badRequest(`no migration found for id ${id}`);
  return { data: { migration_id: id, migration_info: info }, topLevel: true };
}

/** The `sys/remount` family, status first so `remount/status/x` is not read as a body-less move. */
export const remountPaths: readonly SecretsPath[] = [
  {
    pattern: 'remount/status/:migration_id',
    synopsis: 'Show the status of a mount migration',
    params: { migration_id: 'the id `sys/remount` answered with' },
    operations: { read: { summary: 'Read the status of a mount migration', handle: status } },
  },
  {
    pattern: 'remount',
    synopsis: 'Move a secrets engine to a new path',
    fields: {
      from: Type.String({ description: 'the current mount path, e.g. "secret/"' }),
      to: Type.String({ description: 'the new mount path, e.g. "kv/"' }),
    },
    operations: { update: { summary: "Move a secrets engine, revoking the old path's leases", required: ['from', 'to'], handle: remount } },
  },
];
