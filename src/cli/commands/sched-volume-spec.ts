/**
 * Volume specification files of `cairn sched volume register|create FILE`, in HCL or JSON,
 * with the keys users of the reference CLI write (`nomad volume register` files):
 *
 * ```hcl
 * id           = "db"                  # required
 * name         = "database"
 * type         = "csi"                 # required; only csi
 * namespace    = "prod"
 * plugin_id    = "hostpath"            # required
 * external_id  = "vol-0b1…"            # register: the volume in the plugin
 * snapshot_id  = "snap-1"              # create: source snapshot (or clone_id)
 * capacity_min = "10GiB"               # create: bytes, or a size with a unit (GiB, GB, MiB, …)
 * capacity_max = "20G"
 * capability {                         # at least one (repeatable)
 *   access_mode     = "single-node-writer"
 *   attachment_mode = "file-system"
 * }
 * mount_options { fs_type = "ext4"  mount_flags = ["noatime"] }
 * secrets    { password = "…" }
 * parameters { tier = "gold" }
 * context    { … }
 * topology_request {
 *   required  { topology { segments { rack = "r1" } } }
 *   preferred { topology { segments { zone = "a" } } }
 * }
 * ```
 *
 * Top-level `access_mode` / `attachment_mode` (the reference's older form) become one
 * capability. Checked with the kernel's config schema (kernel/config, loaded on demand), so
 * every problem names the file, line and key: `vol.hcl:4: unknown key "acces_mode" in
 * capability`, `vol.hcl:2: "type" must be csi (got "host")` (several joined by `; `).
 *
 * @module
 */
import type { ConfigOf, BlockAt } from '../../kernel/config/index.js';
import {
  SCHED_CSI_ACCESS_MODES as ACCESS_MODES,
  SCHED_CSI_ATTACHMENT_MODES as ATTACHMENT_MODES,
  type SchedTopology,
  type SchedVolumeCapability,
  type SchedVolumeSpec,
} from '../../sdk/index.js';
import { UsageError } from '../args.js';

const topologies = { kind: 'block', keys: { topology: { kind: 'block', repeated: true, keys: { segments: { kind: 'raw', required: true } } } } } as const;

/** The keys of a volume specification file (kernel/config schema shape; see the module doc). */
const VOLUME_SPEC_KEYS = {
  id: { kind: 'string', required: true, doc: 'the volume ID in the scheduler' },
  name: { kind: 'string', doc: "display name; the plugin's volume name on create (default: the ID)" },
  type: { kind: 'string', required: true, enum: ['csi'], doc: 'volume type; only csi' },
  namespace: { kind: 'string', doc: 'namespace of the volume (default: -namespace, else default)' },
  plugin_id: { kind: 'string', required: true, doc: 'the CSI plugin' },
  external_id: { kind: 'string', doc: "register: the volume's ID in the plugin" },
  snapshot_id: { kind: 'string', doc: 'create: a snapshot to restore' },
  clone_id: { kind: 'string', doc: 'create: a volume to clone' },
  capacity_min: { kind: 'raw', doc: 'smallest capacity: bytes or a size such as 10GiB' },
  capacity_max: { kind: 'raw', doc: 'largest capacity: bytes or a size such as 20GiB' },
  access_mode: { kind: 'string', enum: ACCESS_MODES, doc: 'older form of one capability block' },
  attachment_mode: { kind: 'string', enum: ATTACHMENT_MODES, doc: 'older form of one capability block' },
  capability: {
    kind: 'block',
    repeated: true,
    keys: { access_mode: { kind: 'string', required: true, enum: ACCESS_MODES }, attachment_mode: { kind: 'string', required: true, enum: ATTACHMENT_MODES } },
    doc: 'a way the volume may be used (at least one)',
  },
  mount_options: { kind: 'block', keys: { fs_type: { kind: 'string' }, mount_flags: { kind: 'list', of: 'string' } }, doc: 'file-system volumes only' },
  secrets: { kind: 'raw', doc: 'map of strings passed to the plugin' },
  parameters: { kind: 'raw', doc: 'map of strings passed to the plugin' },
  context: { kind: 'raw', doc: 'map of strings passed to the plugin' },
  topology_request: { kind: 'block', keys: { required: topologies, preferred: topologies } },
} as const;

type Raw = ConfigOf<typeof VOLUME_SPEC_KEYS>;

/** A parsed specification: the SDK's volume definition, and the file's `type`. */
export interface ParsedVolumeSpec {
  readonly type: 'csi';
  readonly spec: SchedVolumeSpec;
}

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 2 ** 10,
  kib: 2 ** 10,
  m: 1e6,
  mb: 1e6,
  mi: 2 ** 20,
  mib: 2 ** 20,
  g: 1e9,
  gb: 1e9,
  gi: 2 ** 30,
  gib: 2 ** 30,
  t: 1e12,
  tb: 1e12,
  ti: 2 ** 40,
  tib: 2 ** 40,
  p: 1e15,
  pb: 1e15,
  pi: 2 ** 50,
  pib: 2 ** 50,
};

/**
 * A size as bytes: a non-negative integer, or a number with a unit as the reference reads
 * them (go-humanize `ParseBytes`: `10GiB`, `1.5 GiB`, `500MB`, `20G`; SI units are powers of
 * 1000, IEC units of 1024; case ignored). Fractions of a byte are dropped.
 * @throws Error `invalid size "<v>": …` for anything else or a size past 2^53.
 */
function parseBytes(value: unknown): number {
  const bad = (why: string) => new Error(`invalid size ${JSON.stringify(value)}: ${why}`);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw bad('expected a whole number of bytes');
    return value;
  }
  if (typeof value !== 'string') throw bad('expected a number of bytes or a string such as "10GiB"');
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(value);
  if (!m) throw bad('expected a number with an optional unit, such as 10GiB, 500MB or 1073741824');
  const unit = UNITS[m[2].toLowerCase()];
  if (unit === undefined) throw bad(`unknown unit "${m[2]}" (use B, kB, MB, GB, TB, PB or KiB, MiB, GiB, TiB, PiB)`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw bad('too large');
  return bytes;
}

/** Elements of an HCL1 list-wrapped value (`[{…}, {…}]`) or a JSON one (`{…}`). */
const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/**
 * A `key { k = "v" }` / `"key": {"k": "v"}` map of strings (numbers and booleans written as
 * text). @throws the config kernel's error at `key`'s line when it is not a map of scalars.
 */
function stringMap(
  value: unknown,
  at: BlockAt,
  key: string,
  blockError: (at: BlockAt, key: string, message: string) => Error,
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  const out: Record<string, string> = {};
  for (const item of items(value)) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw blockError(at, key, `"${key}" must be a block of name = "value" pairs`);
    for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw blockError(at, key, `"${key}": the value of "${k}" must be a string`);
      out[k] = String(v);
    }
  }
  return out;
}

/**
 * Parses and checks a volume specification (see the module doc). `file` names it in errors
 * (`-` for standard input). Capacities become bytes; the block forms become the SDK's
 * `RequestedCapabilities`, `MountOptions`, `RequestedTopologies`.
 * @throws UsageError `<file>:<line>: <what is wrong>` naming the key (every problem found,
 *   joined by `; `): a syntax error, an
 *   unknown key, a missing `id` / `type` / `plugin_id` / capability, an unknown access or
 *   attachment mode, a bad size, `capacity_max` below `capacity_min`, a map that is not one.
 */
export async function parseVolumeSpec(text: string, file: string): Promise<ParsedVolumeSpec> {
  const { parseConfig, blockError, ConfigError, formatIssue } = await import('../../kernel/config/index.js');
  try {
    const raw: Raw = parseConfig(text, file, VOLUME_SPEC_KEYS);
    const at = raw.$at;
    const bytes = (key: 'capacity_min' | 'capacity_max'): number | undefined => {
      if (raw[key] === undefined || raw[key] === null) return undefined;
      try {
        return parseBytes(raw[key]);
      } catch (err) {
        throw blockError(at, key, `"${key}": ${(err as Error).message}`);
      }
    };
    const min = bytes('capacity_min');
    const max = bytes('capacity_max');
    if (min !== undefined && max !== undefined && max > 0 && max < min)
      throw blockError(at, 'capacity_max', `"capacity_max" (${max} bytes) is less than "capacity_min" (${min} bytes)`);

    const capabilities: SchedVolumeCapability[] = raw.capability.map((c) => ({ AccessMode: c.access_mode, AttachmentMode: c.attachment_mode }));
    if (raw.access_mode !== undefined || raw.attachment_mode !== undefined) {
      if (raw.access_mode === undefined) throw blockError(at, 'attachment_mode', '"attachment_mode" needs "access_mode" beside it (or use a capability block)');
      if (raw.attachment_mode === undefined) throw blockError(at, 'access_mode', '"access_mode" needs "attachment_mode" beside it (or use a capability block)');
      capabilities.push({ AccessMode: raw.access_mode, AttachmentMode: raw.attachment_mode });
    }
    if (capabilities.length === 0) {
      throw blockError(
        at,
        undefined,
        'missing required block "capability": at least one, e.g. capability { access_mode = "single-node-writer"  attachment_mode = "file-system" }',
      );
    }

    const mapError = (a: BlockAt, key: string, message: string) => blockError(a, key, message);
    const topo = (kind: 'required' | 'preferred'): { Segments: SchedTopology }[] | undefined => {
      const b = raw.topology_request?.[kind];
      return b?.topology.map((t) => ({ Segments: stringMap(t.segments, t.$at, 'segments', mapError) ?? {} }));
    };
    const required = topo('required');
    const preferred = topo('preferred');
    const mount = raw.mount_options;
    const spec: SchedVolumeSpec = {
      ID: raw.id,
      ...(raw.name !== undefined ? { Name: raw.name } : {}),
      ...(raw.namespace !== undefined ? { Namespace: raw.namespace } : {}),
      PluginID: raw.plugin_id,
      ...(raw.external_id !== undefined ? { ExternalID: raw.external_id } : {}),
      ...(raw.snapshot_id !== undefined ? { SnapshotID: raw.snapshot_id } : {}),
      ...(raw.clone_id !== undefined ? { CloneID: raw.clone_id } : {}),
      ...(min !== undefined ? { RequestedCapacityMin: min } : {}),
      ...(max !== undefined ? { RequestedCapacityMax: max } : {}),
      RequestedCapabilities: capabilities,
      ...(mount ? { MountOptions: { FsType: mount.fs_type ?? '', MountFlags: mount.mount_flags ?? [] } } : {}),
      ...optionalMap('Secrets', stringMap(raw.secrets, at, 'secrets', mapError)),
      ...optionalMap('Parameters', stringMap(raw.parameters, at, 'parameters', mapError)),
      ...optionalMap('Context', stringMap(raw.context, at, 'context', mapError)),
      ...(required || preferred ? { RequestedTopologies: { Required: required ?? null, Preferred: preferred ?? null } } : {}),
    };
    return { type: raw.type, spec };
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.issues.length > 0 ? err.issues.map(formatIssue).join('; ') : err.message);
    throw err;
  }
}

/** `{[name]: map}` when the map was given, else nothing. */
function optionalMap<K extends string>(name: K, map: Record<string, string> | undefined): Partial<Record<K, Record<string, string>>> {
  return map === undefined ? {} : ({ [name]: map } as Record<K, Record<string, string>>);
}
