/**
 * Password rotation: static roles (at once on create, on `rotate-role/:name`, and every
 * `rotation_period` from the engine's periodic hook on the active server; the reference's
 * rotation queue) and the root user of a connection (`rotate-root/:name`).
 *
 * A static rotation stores the new password as `pending_password` before it changes the
 * database, then as the password once the change is committed: a rotation cut short (the
 * database down, the server killed) is retried with the same password by the next round,
 * so the stored password always ends up the database's (the reference's WAL entry).
 *
 * @module
 */
import { CairnError, badRequest } from '../../../kernel/http/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import type { EnginePeriodicContext } from '../core.js';
import { configStore } from './config.js';
import { connectionOf, type DbContext } from './connection.js';
import { defaultPassword, scramVerifier } from './password.js';
import { dropPool } from './pool.js';
import { changePassword } from './postgres.js';
import { staticRoleStore, type StaticRole } from './static-roles.js';

/** One rotation at a time per role and per connection (keys carry the mount uuid, so servers sharing a process never meet). */
const locks = new KeyedLock();

/**
 * Rotates static role `name` now and returns it as stored after.
 * Errors: 400 when the role or its connection is gone; 500 with the database's message
 * when the change fails (the pending password stays for the next try).
 */
export async function rotateStatic(ctx: DbContext & { readonly now: Date }, name: string): Promise<StaticRole> {
  return locks.run(`${ctx.mount.uuid}/static/${name}`, async () => {
    const store = staticRoleStore(ctx.storage);
    const role = await store.get(name);
    if (!role) throw badRequest(`unable to find static role "${name}"`);
    const { config, pool } = await connectionOf(ctx, role.db_name);
    const password = role.pending_password ?? defaultPassword();
    if (!role.pending_password) await store.put(name, { ...role, pending_password: password });
    try {
      const sent = config.password_authentication === 'scram-sha-256' ? scramVerifier(password) : password;
      await changePassword(pool, role.rotation_statements, role.username, sent);
    } catch (err) {
      throw new CairnError('internal', `error setting credentials: ${(err as Error).message}`);
    }
    const next: StaticRole = { ...role, password, last_rotation_ms: ctx.now.getTime() };
    delete (next as { pending_password?: string }).pending_password;
    await store.put(name, next);
    return next;
  });
}

/**
 * The periodic hook: rotates every static role whose period has passed (or whose last
 * rotation was cut short). Each role is tried; the first failure is thrown afterwards (logged, retried next round).
 */
export async function rotateDue(ctx: EnginePeriodicContext): Promise<void> {
  const store = staticRoleStore(ctx.storage);
  const names = await store.list();
  let first: Error | undefined;
  for (const name of names) {
    const role = await store.get(name);
    if (!role) continue;
    if (!role.pending_password && ctx.now.getTime() < role.last_rotation_ms + role.rotation_period * 1000) continue;
    try {
      await rotateStatic({ mount: ctx.mount, storage: ctx.storage, resources: ctx.core.resources, now: ctx.now }, name);
    } catch (err) {
      first ??= new Error(`static role "${name}": ${(err as Error).message}`);
    }
  }
  if (first) throw first;
}

/**
 * `rotate-root/:name`: a new root password set with `root_rotation_statements` (default
 * `ALTER ROLE "{{username}}" WITH PASSWORD …`), stored (behind the barrier only) once the
 * database has it, and the pool reopened with it. The password is never returned.
 * Errors: 400 unknown connection or no `username`; 500 with the database's message.
 */
export async function rotateRoot(ctx: DbContext, name: string): Promise<void> {
  await locks.run(`${ctx.mount.uuid}/root/${name}`, async () => {
    const { config, pool } = await connectionOf(ctx, name);
    if (config.username === '') throw badRequest('unable to rotate root credentials: no username in configuration');
    const password = defaultPassword();
    try {
      const sent = config.password_authentication === 'scram-sha-256' ? scramVerifier(password) : password;
      await changePassword(pool, config.root_rotation_statements, config.username, sent);
    } catch (err) {
      throw new CairnError('internal', `failed to update user: ${(err as Error).message}`);
    }
    await configStore(ctx.storage).put(name, { ...config, password });
    await dropPool(ctx.resources, ctx.mount, name);
  });
}
