/**
 * The audit broker: the enabled devices of a server, stored behind the barrier at
 * `core/audit` (salts included: they never reach a disk in clear), loaded when a core
 * opens (the active server's, or a performance standby's, which reloads them when the
 * key changes: ha/invalidate.ts), and the fan-out of each entry to every device.
 *
 * Fail closed (the reference's rule): with at least one device enabled, an entry that no
 * device could write fails the request with 500 `internal error`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { CairnError, badRequest, type HttpRequest, type HttpResponse } from '../../../kernel/http/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import { DEVICE_TYPES, devicePath, type DeviceType, type StoredDevice } from './config.js';
import { AuditDevice } from './device.js';
import type { EntryStyle } from './entry.js';
import { AuditTrail, NO_TRAIL, type Trail } from './trail.js';

/** Where the device table is stored (root storage, behind the barrier). */
export const AUDIT_KEY = 'core/audit';

/** The stored table: devices by path. */
interface AuditTable {
  readonly devices: Readonly<Record<string, StoredDevice>>;
}

/** What `PUT sys/audit/:path` asks for. */
export interface EnableInput {
  readonly path: string;
  readonly type: string;
  readonly description: string;
  readonly local: boolean;
  readonly options: Readonly<Record<string, string>>;
}

/** The 500 of a request no device could audit (the reference's text). */
const auditFailed = () => new CairnError('internal', 'internal error');

/** The devices of one server. */
export class AuditBroker {
  private devices = new Map<string, AuditDevice>();
  private readonly lock = new KeyedLock();

  constructor(private readonly log: Logger) {}

  /** How many devices are enabled. */
  get size(): number {
    return this.devices.size;
  }

  /**
   * Makes the open devices those stored in `storage`: devices whose configuration is
   * unchanged stay open, removed ones are closed, new ones opened. A device whose output
   * cannot be opened is kept (its writes fail, so requests fail closed) and logged.
   */
  async load(storage: Backend): Promise<void> {
    await this.lock.run('table', async () => {
      const stored = (await readTable(storage)).devices;
      const next = new Map<string, AuditDevice>();
      for (const [path, s] of Object.entries(stored)) {
        const open = this.devices.get(path);
        if (open?.sameAs(s)) next.set(path, open);
        else {
          open?.close();
          next.set(path, this.openStored(s));
        }
      }
      for (const [path, d] of this.devices) if (!(path in stored)) d.close();
      this.devices = next;
    });
  }

  /** Opens a stored device; on an open error, logs it and keeps the device, which tries to open its file at each write. */
  private openStored(s: StoredDevice): AuditDevice {
    try {
      return new AuditDevice(s);
    } catch (err) {
      this.log.error({ device: s.path, err: (err as Error).message }, 'audit device cannot open its output; requests fail until it can');
      return new AuditDevice(s, false);
    }
  }

  /** The devices as `GET sys/audit` shows them, by path. */
  list(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [path, d] of [...this.devices].sort(([a], [b]) => a.localeCompare(b))) {
      const s = d.stored;
      out[path] = { type: s.type, description: s.description, options: { ...s.options }, local: s.local, path };
    }
    return out;
  }

  /**
   * Enables a device: validates, opens its output (so a bad `file_path` is refused now),
   * makes its salt, stores it, then starts writing to it.
   * @throws CairnError 400: unknown type, path in use, a bad option, an output that cannot be opened (naming it).
   */
  async enable(storage: Backend, input: EnableInput): Promise<void> {
    const path = devicePath(input.path);
    if (!(DEVICE_TYPES as readonly string[]).includes(input.type))
      throw badRequest(`type: unknown audit device type "${input.type}" (known: ${DEVICE_TYPES.join(', ')})`);
    await this.lock.run('table', async () => {
      const table = await readTable(storage);
      if (table.devices[path] || this.devices.has(path)) throw badRequest(`path already in use: "${path}"`);
      const stored: StoredDevice = {
        type: input.type as DeviceType,
        path,
        description: input.description,
        local: input.local,
        options: input.options,
        salt: randomUUID(),
      };
      let device: AuditDevice;
      try {
        device = new AuditDevice(stored);
      } catch (err) {
        if (err instanceof CairnError) throw err;
        throw badRequest(`options.file_path: cannot open "${input.options.file_path}": ${(err as Error).message}`);
      }
      try {
        await storage.put(AUDIT_KEY, json.encode({ devices: { ...table.devices, [path]: stored } } satisfies AuditTable));
      } catch (err) {
        device.close();
        throw err;
      }
      this.devices = new Map([...this.devices, [path, device]]);
    });
  }

  /** Disables the device at `path` (nothing to do when there is none, as the reference). */
  async disable(storage: Backend, path: string): Promise<void> {
    const p = devicePath(path);
    await this.lock.run('table', async () => {
      const table = await readTable(storage);
      if (table.devices[p]) {
        const devices = { ...table.devices };
        delete devices[p];
        await storage.put(AUDIT_KEY, json.encode({ devices } satisfies AuditTable));
      }
      const d = this.devices.get(p);
      if (!d) return;
      const next = new Map(this.devices);
      next.delete(p);
      this.devices = next;
      d.close();
    });
  }

  /**
   * `sys/audit-hash`: `input` hashed as the device at `path` hashes (its salt), so an
   * operator can look a known value up in the log.
   * @throws CairnError 400 when no device is at `path`.
   */
  hash(path: string, input: string): string {
    const d = this.devices.get(devicePath(path));
    if (!d) throw badRequest(`unknown audit device: "${devicePath(path)}"`);
    return d.hasher.hash(input);
  }

  /** Reopens every device's output (SIGHUP, log rotation); a device that cannot reopen is logged and fails its writes. */
  reopen(): void {
    for (const [path, d] of this.devices) {
      try {
        d.reopen();
      } catch (err) {
        this.log.error({ device: path, err: (err as Error).message }, 'audit device cannot reopen its output; requests fail until it can');
      }
    }
  }

  /** Closes every device (sealed, or the service stops); they are loaded again at the next unseal. */
  close(): void {
    for (const d of this.devices.values()) d.close();
    this.devices = new Map();
  }

  /**
   * Runs one request with its audit trail: `run` gets the trail to report the request
   * entry on (before the handler runs); the response entry (or the error entry) is
   * written when it settles. Without devices, `run` gets a trail that does nothing.
   * @throws what `run` throws, or CairnError 500 when no device could write an entry.
   */
  around(req: HttpRequest, clientToken: string, run: (trail: Trail) => Promise<HttpResponse>): Promise<HttpResponse> {
    if (this.devices.size === 0) return run(NO_TRAIL);
    const trail = new AuditTrail(this, req, clientToken);
    return run(trail).then(
      (res) => trail.respond(res),
      (err: unknown) => trail.fail(err),
    );
  }

  /**
   * Writes the line `format` makes for each device (each hashes with its own salt);
   * settles once every device has written or failed (synchronous only when all discard).
   * @throws (or rejects with) CairnError 500 when devices are enabled and none could write.
   */
  write(format: (style: EntryStyle) => string): void | Promise<void> {
    let written = 0;
    let pending: Promise<unknown>[] | undefined;
    const failed = (path: string, err: unknown) => this.log.error({ device: path, err: (err as Error).message }, 'audit device failed to write an entry');
    for (const [path, d] of this.devices) {
      try {
        const w = d.write(format(d.style));
        if (w)
          (pending ??= []).push(
            w.then(
              () => written++,
              (err: unknown) => failed(path, err),
            ),
          );
        else written++;
      } catch (err) {
        failed(path, err);
      }
    }
    const check = () => {
      if (written === 0 && this.devices.size > 0) throw auditFailed();
    };
    if (!pending) return check();
    return Promise.all(pending).then(check);
  }
}

/** The stored table (empty when none). */
async function readTable(storage: Backend): Promise<AuditTable> {
  return json.decode<AuditTable>(await storage.get(AUDIT_KEY)) ?? { devices: {} };
}
