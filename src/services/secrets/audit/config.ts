/**
 * An audit device's stored configuration and the validation of `PUT sys/audit/:path`
 * (the reference's `sys/audit` API and its file and socket device options).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import { parseGoBool } from '../../../kernel/util/go-bool.js';

/** Device types Cairn has (the reference also has `syslog`: see docs/compatibility.md). */
export const DEVICE_TYPES = ['file', 'socket'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** One enabled device as stored behind the barrier (`core/audit`). */
export interface StoredDevice {
  readonly type: DeviceType;
  /** The device's path, ending in `/` (`file/`). */
  readonly path: string;
  readonly description: string;
  readonly local: boolean;
  /** The options as given (strings), shown by `GET sys/audit`. */
  readonly options: Readonly<Record<string, string>>;
  /** HMAC key of the device's hashes (a UUID, as the reference's salt); never leaves the barrier. */
  readonly salt: string;
}

/** The options every device type takes, parsed. */
interface CommonOptions {
  readonly logRaw: boolean;
  readonly hmacAccessor: boolean;
  readonly prefix: string;
}

/** A file device's options, parsed. `filePath` may be `stdout` or `discard`. */
interface FileOptions extends CommonOptions {
  readonly kind: 'file';
  readonly filePath: string;
  /** File mode; 0 = leave the mode as it is (the reference's `mode=0000`). */
  readonly mode: number;
}

/** A socket device's options, parsed. */
interface SocketOptions extends CommonOptions {
  readonly kind: 'socket';
  readonly address: string;
  readonly socketType: 'tcp' | 'udp' | 'unix';
  /** Milliseconds a write may take before it counts as failed (default 2 s, as the reference). */
  readonly writeTimeoutMs: number;
}

export type DeviceOptions = FileOptions | SocketOptions;

const COMMON = ['format', 'prefix', 'log_raw', 'hmac_accessor'];
const KNOWN: Readonly<Record<DeviceType, readonly string[]>> = {
  file: [...COMMON, 'file_path', 'mode'],
  socket: [...COMMON, 'address', 'socket_type', 'write_timeout'],
};

/** Go's `strconv.ParseBool` for an option (the reference's options are strings). @throws 400 naming the option. */
function bool(options: Readonly<Record<string, string>>, name: string, dflt: boolean): boolean {
  const v = options[name];
  if (v === undefined) return dflt;
  const b = parseGoBool(v);
  if (b !== undefined) return b;
  throw badRequest(`options.${name}: invalid boolean "${v}"`);
}

/**
 * Parses a device's options (strings; booleans and numbers given as JSON are taken as
 * their text). Errors: 400 naming the option: unknown option, `format` other than
 * `json`, bad boolean, `mode` not an octal string, missing `file_path`/`address`,
 * unknown `socket_type`, bad `write_timeout`.
 */
export function parseOptions(type: DeviceType, options: Readonly<Record<string, string>>): DeviceOptions {
  for (const k of Object.keys(options))
    if (!KNOWN[type].includes(k)) throw badRequest(`options.${k}: not an option of a ${type} audit device (known: ${KNOWN[type].join(', ')})`);
  const format = options.format ?? 'json';
  if (format !== 'json') throw badRequest(`options.format: only "json" is supported, got "${format}"`);
  const common: CommonOptions = { logRaw: bool(options, 'log_raw', false), hmacAccessor: bool(options, 'hmac_accessor', true), prefix: options.prefix ?? '' };
  if (type === 'file') {
    const filePath = options.file_path ?? '';
    if (filePath === '') throw badRequest('options.file_path: required for a file audit device (a path, "stdout" or "discard")');
    const modeText = options.mode ?? '0600';
    if (!/^[0-7]{1,4}$/.test(modeText)) throw badRequest(`options.mode: must be an octal file mode such as "0600", got "${modeText}"`);
    return { kind: 'file', ...common, filePath, mode: parseInt(modeText, 8) };
  }
  const address = options.address ?? '';
  if (address === '') throw badRequest('options.address: required for a socket audit device');
  const socketType = options.socket_type ?? 'tcp';
  if (socketType !== 'tcp' && socketType !== 'udp' && socketType !== 'unix')
    throw badRequest(`options.socket_type: must be "tcp", "udp" or "unix", got "${socketType}"`);
  if (socketType !== 'unix' && !/^.+:\d+$/.test(address))
    throw badRequest(`options.address: must be host:port for socket_type "${socketType}", got "${address}"`);
  const timeoutS = options.write_timeout === undefined ? 2 : parseDuration(options.write_timeout, 'options.write_timeout');
  if (timeoutS <= 0) throw badRequest('options.write_timeout: must be a positive duration');
  return { kind: 'socket', ...common, address, socketType, writeTimeoutMs: timeoutS * 1000 };
}

/** The options of a request body as strings (the reference's `map[string]string`). @throws 400 for a nested value. */
export function optionStrings(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw === null) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object') throw badRequest(`options.${k}: must be a string`);
    out[k] = String(v);
  }
  return out;
}

/** `file` → `file/`: device paths end in one `/`. @throws 400 for an empty path. */
export function devicePath(path: string): string {
  const p = path.replace(/\/+$/, '');
  if (p === '') throw badRequest('path: an audit device path is required');
  return p + '/';
}
