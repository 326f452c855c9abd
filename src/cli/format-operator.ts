/**
 * Pure output helpers of the operator, auth, secrets and namespace commands, in the
 * reference CLI's style: the seal status table, the `auth list` and `secrets list` tables,
 * the `operator init` text and the 80-column word wrap the reference applies to its advice
 * paragraphs.
 *
 * @module
 */
import type { HaStatus, InitResponse, MountInfo, NamespaceInfo, SealStatus } from '../sdk/index.js';
import { columns, formatValue } from './format.js';

/** Width the reference wraps its prose at. */
const WRAP_WIDTH = 80;

/**
 * Greedy word wrap: lines at most `width` characters where words allow (a longer word stays
 * whole on its own line). Existing line breaks are kept; runs of spaces collapse.
 */
export function wrapAtLength(text: string, width = WRAP_WIDTH): string {
  return text
    .split('\n')
    .map((paragraph) => {
      const lines: string[] = [];
      let line = '';
      for (const word of paragraph.split(/\s+/).filter((w) => w !== '')) {
        if (line === '') line = word;
        else if (line.length + 1 + word.length <= width) line += ` ${word}`;
        else {
          lines.push(line);
          line = word;
        }
      }
      lines.push(line);
      return lines.join('\n');
    })
    .join('\n');
}

/**
 * Rows of the reference's seal status table: seal type, initialised, sealed, shares and
 * threshold, unseal progress and nonce while sealed, version, storage type, cluster name and
 * ID once unsealed, and `HA Enabled` (always `false`: Cairn has no HA mode yet).
 */
export function sealStatusRows(status: SealStatus): string[][] {
  const prefix = status.recovery_seal ? 'Recovery ' : '';
  const rows: string[][] = [
    [`${prefix}Seal Type`, status.type],
    ['Initialized', String(status.initialized)],
    ['Sealed', String(status.sealed)],
    [`Total ${prefix}Shares`, String(status.n)],
    ['Threshold', String(status.t)],
  ];
  if (status.sealed) {
    rows.push(['Unseal Progress', `${status.progress}/${status.t}`], ['Unseal Nonce', status.nonce ?? '']);
  }
  if (status.migration) rows.push(['Seal Migration in Progress', 'true']);
  rows.push(['Version', status.version ?? '']);
  if (status.build_date) rows.push(['Build Date', status.build_date]);
  rows.push(['Storage Type', status.storage_type ?? '']);
  if (status.cluster_name && status.cluster_id) rows.push(['Cluster Name', status.cluster_name], ['Cluster ID', status.cluster_id]);
  rows.push(['HA Enabled', 'false']);
  return rows;
}

/** The seal status as the reference's `status` prints it: a `Key`/`Value` table. */
export function sealStatusTable(status: SealStatus): string {
  return columns(['Key', 'Value'], sealStatusRows(status));
}

/** The seal status as `-format=json` prints it: the server's body plus `ha_enabled`. */
export function sealStatusJson(status: SealStatus): Record<string, unknown> {
  return { ...status, ha_enabled: false };
}

/**
 * What `operator init` prints: one `Unseal Key N:` line per share (base64 when the server
 * gave base64 for all of them), the root token, and the reference's advice on the shares.
 */
export function initText(res: InitResponse, shares: number, threshold: number): string {
  const b64 = Array.isArray(res.keys_base64) && res.keys_base64.length === res.keys.length;
  const lines = res.keys.map((key, i) => `Unseal Key ${i + 1}: ${b64 ? res.keys_base64[i] : key}`);
  lines.push('', `Initial Root Token: ${res.root_token}`, '');
  lines.push(
    wrapAtLength(
      `The secrets service was initialized with ${shares} key shares and a key threshold of ${threshold}. ` +
        'Please securely distribute the key shares printed above. When the service is re-sealed, ' +
        `restarted, or stopped, you must supply at least ${threshold} of these keys to unseal it ` +
        'before it can start servicing requests.',
    ),
    '',
    wrapAtLength(
      `The secrets service does not store the generated root key. Without at least ${threshold} ` +
        'keys to reconstruct the root key, the service will remain permanently sealed!',
    ),
  );
  return lines.join('\n');
}

/** The reference's `auth list` table: `Path`, `Type`, `Accessor`, `Description`, `Version`, paths sorted. */
export function authListTable(mounts: Record<string, MountInfo>): string {
  const rows = Object.keys(mounts)
    .sort()
    .map((path) => {
      const m = mounts[path];
      const version = typeof m.plugin_version === 'string' ? m.plugin_version : '';
      return [path, m.type ?? '', m.accessor ?? '', m.description ?? '', version];
    });
  return columns(['Path', 'Type', 'Accessor', 'Description', 'Version'], rows);
}

/** A mount's TTL as the reference's `secrets list -detailed` prints it: seconds, `system` for the default, empty for the built-ins. */
function mountTtl(type: string, seconds: number | undefined): string {
  if (type === 'system' || type === 'cubbyhole') return '';
  return seconds ? String(seconds) : 'system';
}

/**
 * The reference's `secrets list` table, paths sorted: `Path`, `Type`, `Accessor`,
 * `Description`; `detailed` gives `Path`, `Plugin`, `Accessor`, `Default TTL`, `Max TTL`
 * (seconds, or `system`), `Force No Cache`, `Replication` (`local`/`replicated`),
 * `Seal Wrap`, `Options` (Go's `map[k:v]`), `Description`, `UUID`.
 */
export function secretsListTable(mounts: Record<string, MountInfo>, detailed: boolean): string {
  const paths = Object.keys(mounts).sort();
  if (!detailed) {
    const rows = paths.map((path) => [path, mounts[path].type ?? '', mounts[path].accessor ?? '', mounts[path].description ?? '']);
    return columns(['Path', 'Type', 'Accessor', 'Description'], rows);
  }
  const rows = paths.map((path) => {
    const m = mounts[path];
    return [
      path,
      m.type ?? '',
      m.accessor ?? '',
      mountTtl(m.type, m.config?.default_lease_ttl),
      mountTtl(m.type, m.config?.max_lease_ttl),
      String(m.config?.force_no_cache === true),
      m.local ? 'local' : 'replicated',
      String(m.seal_wrap === true),
      formatValue(m.options ?? {}),
      m.description ?? '',
      m.uuid ?? '',
    ];
  });
  const header = ['Path', 'Plugin', 'Accessor', 'Default TTL', 'Max TTL', 'Force No Cache', 'Replication', 'Seal Wrap', 'Options', 'Description', 'UUID'];
  return columns(header, rows);
}

/**
 * The reference's `operator members` table: `Host Name`, `API Address`, `Cluster Address`,
 * `Active Node`, `Version`, `Last Echo` (`n/a` for the active server), in the server's order.
 */
export function membersTable(status: HaStatus): string {
  const rows = status.nodes.map((n) => [n.hostname, n.api_address, n.cluster_address, String(n.active_node), n.version, n.last_echo ?? '']);
  return columns(['Host Name', 'API Address', 'Cluster Address', 'Active Node', 'Version', 'Last Echo'], rows);
}

/** A namespace as `namespace create` prints it: `Key`/`Value` rows of its fields, keys sorted. */
export function namespaceTable(info: NamespaceInfo): string {
  const keys = Object.keys(info).sort();
  return columns(
    ['Key', 'Value'],
    keys.map((k) => [k, formatValue(info[k])]),
  );
}
