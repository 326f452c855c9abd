/**
 * Table output of `cairn sched volume …` and `cairn sched plugin status` in the reference
 * CLI's style (Nomad's `volume status`, `volume snapshot list`, `plugin status`): `Key =
 * value` blocks, columns two spaces apart, sections headed by a bare title.
 *
 * @module
 */
import type { SchedCsiInfo, SchedPlugin, SchedPluginStub, SchedSnapshot, SchedSnapshotCreated, SchedVolume, SchedVolumeStub } from '../../sdk/index.js';
import { kv, list, shortId } from './sched-format.js';

const orNone = (s: string | null | undefined) => (s ? s : '<none>');

/**
 * `bytes` as the reference prints sizes (go-humanize `IBytes`): `512 B`, `1.5 KiB`, `10 GiB`
 * (one decimal below 10, none from 10 up).
 */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : v.toFixed(0)} ${units[u]}`;
}

/** `k=v` pairs sorted by key, comma-separated; `<none>` when empty. */
function pairs(m: Readonly<Record<string, string>> | null | undefined): string {
  const rows = Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return rows.length === 0 ? '<none>' : rows.map(([k, v]) => `${k}=${v}`).join(', ');
}

/** Volume list (reference `volume status`): `Container Storage Interface` and one row per stub; `-verbose` adds external ID, provider and claim counts. */
export function volumeList(volumes: readonly SchedVolumeStub[], verbose: boolean): string {
  if (volumes.length === 0) return 'No CSI volumes';
  const header = ['ID', 'Name', 'Namespace', 'Plugin ID', 'Schedulable', 'Access Mode'];
  const rows = volumes.map((v) => [v.ID, v.Name, v.Namespace, v.PluginID, String(v.Schedulable), orNone(v.AccessMode)]);
  if (!verbose) return `Container Storage Interface\n${list(header, rows)}`;
  return `Container Storage Interface\n${list(
    [...header, 'External ID', 'Provider', 'Readers', 'Writers'],
    volumes.map((v, i) => [...rows[i], v.ExternalID, v.Provider, String(v.CurrentReaders), String(v.CurrentWriters)]),
  )}`;
}

/**
 * One volume (reference `volume status <id>`): its fields, topologies and allocations;
 * `-verbose` adds the requested capabilities, parameters and context and full allocation IDs.
 */
export function volumeBlock(v: SchedVolume, verbose: boolean): string {
  const mount = v.MountOptions ? `fs_type: ${orNone(v.MountOptions.FsType)} flags: ${(v.MountOptions.MountFlags ?? []).join(' ') || '<none>'}` : '<none>';
  const rows: [string, string | number | boolean][] = [
    ['ID', v.ID],
    ['Name', v.Name],
    ['Namespace', v.Namespace],
    ['External ID', orNone(v.ExternalID)],
    ['Plugin ID', v.PluginID],
    ['Provider', orNone(v.Provider)],
    ['Version', orNone(v.Version)],
    ['Capacity', v.Capacity > 0 ? formatBytes(v.Capacity) : '<unknown>'],
    ['Schedulable', v.Schedulable],
    ['Controllers Healthy', v.ControllersHealthy],
    ['Controllers Expected', v.ControllersExpected],
    ['Nodes Healthy', v.NodesHealthy],
    ['Nodes Expected', v.NodesExpected],
    ['Access Mode', orNone(v.AccessMode)],
    ['Attachment Mode', orNone(v.AttachmentMode)],
    ['Mount Options', mount],
  ];
  if (v.SnapshotID) rows.push(['Snapshot ID', v.SnapshotID]);
  if (v.CloneID) rows.push(['Clone ID', v.CloneID]);
  if (verbose) {
    if (v.RequestedCapacityMin || v.RequestedCapacityMax)
      rows.push([
        'Requested Capacity',
        `${formatBytes(v.RequestedCapacityMin)} – ${v.RequestedCapacityMax ? formatBytes(v.RequestedCapacityMax) : 'no limit'}`,
      ]);
    rows.push(['Parameters', pairs(v.Parameters)], ['Context', pairs(v.Context)]);
  }
  const parts = [kv(rows)];
  const topologies = v.Topologies ?? [];
  if (topologies.length > 0)
    parts.push(
      `Topologies\n${list(
        ['Topology', 'Segments'],
        topologies.map((t, i) => [String(i).padStart(2, '0'), pairs(t)]),
      )}`,
    );
  if (verbose)
    parts.push(
      `Requested Capabilities\n${list(
        ['Access Mode', 'Attachment Mode'],
        v.RequestedCapabilities.map((c) => [c.AccessMode, c.AttachmentMode]),
      )}`,
    );
  const allocs = v.Allocations ?? [];
  parts.push(
    allocs.length === 0
      ? 'Allocations\nNo allocations placed'
      : `Allocations\n${list(
          ['ID', 'Node ID', 'Job ID', 'Task Group', 'Desired', 'Status'],
          allocs.map((a) => [shortId(a.ID, verbose), shortId(a.NodeID, verbose), a.JobID, a.TaskGroup, a.DesiredStatus, a.ClientStatus]),
        )}`,
  );
  return parts.join('\n\n');
}

/** Snapshot rows (reference `volume snapshot create` / `list`): ID, source volume, size, time, readiness. */
export function snapshotList(snapshots: readonly (SchedSnapshot | SchedSnapshotCreated)[]): string {
  if (snapshots.length === 0) return 'No snapshots found';
  return list(
    ['Snapshot ID', 'Volume ID', 'Size', 'Create Time', 'Ready?'],
    snapshots.map((s) => [
      s.ID,
      ('SourceVolumeID' in s && s.SourceVolumeID) || s.ExternalSourceVolumeID || '',
      formatBytes(s.SizeBytes),
      s.CreateTime ? new Date(s.CreateTime * 1000).toISOString().replace(/\.000Z$/, 'Z') : '<none>',
      String(s.IsReady),
    ]),
  );
}

/** Plugin list (reference `plugin status`): `Container Storage Interface` and one row per plugin. */
export function pluginList(plugins: readonly SchedPluginStub[]): string {
  if (plugins.length === 0) return 'No CSI plugins';
  return `Container Storage Interface\n${list(
    ['ID', 'Provider', 'Controllers Healthy/Expected', 'Nodes Healthy/Expected'],
    plugins.map((p) => [p.ID, orNone(p.Provider), `${p.ControllersHealthy}/${p.ControllersExpected}`, `${p.NodesHealthy}/${p.NodesExpected}`]),
  )}`;
}

/** The capabilities an endpoint reports as `true`, without the `Supports` prefix, space-separated. */
function supported(info: object | null): string {
  const on = Object.entries(info ?? {})
    .filter(([k, v]) => v === true && k.startsWith('Supports'))
    .map(([k]) => k.slice('Supports'.length));
  return on.length === 0 ? '<none>' : on.join(' ');
}

/** One endpoint table (controllers or nodes) of a plugin, by scheduler node ID. */
function endpoints(title: string, m: Readonly<Record<string, SchedCsiInfo>>, verbose: boolean, node: boolean): string {
  const rows = Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1));
  if (rows.length === 0) return `${title}\nNone`;
  const header = ['Node ID', 'Healthy', 'Description', ...(node ? ['Plugin Node ID'] : []), ...(verbose ? ['Capabilities'] : [])];
  return `${title}\n${list(
    header,
    rows.map(([id, i]) => [
      shortId(id, verbose),
      String(i.Healthy),
      i.HealthDescription,
      ...(node ? [i.NodeInfo?.ID ?? ''] : []),
      ...(verbose ? [supported(node ? i.NodeInfo : i.ControllerInfo)] : []),
    ]),
  )}`;
}

/** One plugin (reference `plugin status <id>`): fields, then its controllers and nodes; `-verbose` adds their capabilities and full node IDs. */
export function pluginBlock(p: SchedPlugin, verbose: boolean): string {
  return [
    kv([
      ['ID', p.ID],
      ['Provider', orNone(p.Provider)],
      ['Version', orNone(p.Version)],
      ['Controllers Healthy', p.ControllersHealthy],
      ['Controllers Expected', p.ControllersExpected],
      ['Nodes Healthy', p.NodesHealthy],
      ['Nodes Expected', p.NodesExpected],
    ]),
    endpoints('Controllers', p.Controllers ?? {}, verbose, false),
    endpoints('Nodes', p.Nodes ?? {}, verbose, true),
  ].join('\n\n');
}
