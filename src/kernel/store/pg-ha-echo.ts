/**
 * How the active server of an HA group knows its standbys (the reference's `sys/ha-status`
 * lists "the active node and the peers that it's heard from since it became active"; its
 * standbys echo to the active node every 5 s over the cluster port and the active node
 * forgets a peer 15 s after its last echo). Cairn's servers share only the database, so a
 * standby's echo is a row it upserts in the side table `<table>_ha_nodes` every echo
 * interval (pg-lock.ts `echo.intervalMs`, {@link DEFAULT_ECHO_INTERVAL_MS}); the active
 * server reads the rows echoed since it took the lock and within {@link ECHO_EXPIRY_ECHOES}
 * intervals, and deletes rows long silent (a server killed without a goodbye; every process
 * echoes under a new id). Times are the database's (`now()`), so the servers' clocks need
 * not agree.
 *
 * @module
 */

/** What a server tells the active one about itself (the reference's `NodeInformation`). */
export interface HaEcho {
  /** A random id per server process: two servers on one host stay apart. */
  readonly nodeId: string;
  readonly hostname: string;
  /** Its `api_addr` (or first listener URL). */
  readonly apiAddress: string;
  readonly clusterAddress: string;
  /** Cairn's version the server runs. */
  readonly version: string;
}

/** An echo as the active server reads it. */
export interface HaEchoRow extends HaEcho {
  /** When the database received the last echo. */
  readonly lastEcho: Date;
}

/** A standby's echo interval when not configured, in ms (the reference's cluster heartbeat). */
export const DEFAULT_ECHO_INTERVAL_MS = 5000;

/** A standby is listed while its last echo is at most this many intervals old (the reference: 3 × 5 s). */
export const ECHO_EXPIRY_ECHOES = 3;

/** `CREATE TABLE IF NOT EXISTS` of the echo table (`haNodesTable` quoted). */
const haNodesDdl = (haNodesTable: string) =>
  `CREATE TABLE IF NOT EXISTS ${haNodesTable} (node_id text PRIMARY KEY, hostname text NOT NULL, api_address text NOT NULL,
     cluster_address text NOT NULL, version text NOT NULL, last_echo timestamptz NOT NULL)`;

type Query = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;

/** Records one echo of `echo` (creating the table on first use). @throws PostgreSQL's error. */
export async function writeEcho(query: Query, haNodesTable: string, echo: HaEcho): Promise<void> {
  const upsert = () =>
    query(
      `INSERT INTO ${haNodesTable} (node_id, hostname, api_address, cluster_address, version, last_echo) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (node_id) DO UPDATE SET hostname = EXCLUDED.hostname, api_address = EXCLUDED.api_address,
         cluster_address = EXCLUDED.cluster_address, version = EXCLUDED.version, last_echo = EXCLUDED.last_echo`,
      [echo.nodeId, echo.hostname, echo.apiAddress, echo.clusterAddress, echo.version],
    );
  try {
    await upsert();
  } catch (err) {
    if ((err as { code?: string }).code !== '42P01') throw err;
    await query(haNodesDdl(haNodesTable));
    await upsert();
  }
}

/** Removes `nodeId`'s echo (a standby that stops or becomes active). @throws PostgreSQL's error. */
export async function dropEcho(query: Query, haNodesTable: string, nodeId: string): Promise<void> {
  await query(`DELETE FROM ${haNodesTable} WHERE node_id = $1`, [nodeId]).catch((err: { code?: string }) => {
    if (err?.code !== '42P01') throw err;
  });
}

/** Rows silent this long are deleted by the active server, in ms (far past any listing). */
export const ECHO_PRUNE_MS = 60 * 60_000;

/** Deletes the echoes older than `olderThanMs` (servers gone for good). @throws PostgreSQL's error. */
export async function pruneEchoes(query: Query, haNodesTable: string, olderThanMs: number): Promise<void> {
  await query(`DELETE FROM ${haNodesTable} WHERE last_echo < now() - make_interval(secs => $1::double precision / 1000)`, [olderThanMs]).catch(
    (err: { code?: string }) => {
      if (err?.code !== '42P01') throw err;
    },
  );
}

/**
 * The echoes in `haNodesTable` other than `selfId`'s received since `since` (when this
 * server took the lock) and within `expiryMs`, by API address. @throws PostgreSQL's error.
 */
export async function readEchoes(
  query: Query,
  { haNodesTable, selfId, since, expiryMs }: { haNodesTable: string; selfId: string; since: Date; expiryMs: number },
): Promise<HaEchoRow[]> {
  const r = await query(
    `SELECT node_id, hostname, api_address, cluster_address, version, last_echo FROM ${haNodesTable}
      WHERE node_id <> $1 AND last_echo >= $2 AND last_echo > now() - make_interval(secs => $3::double precision / 1000)
      ORDER BY api_address, node_id`,
    [selfId, since, expiryMs],
  ).catch((err: { code?: string }) => {
    if (err?.code === '42P01') return { rows: [] }; // no standby has echoed yet
    throw err;
  });
  return (r.rows as Array<Record<string, unknown>>).map((row) => ({
    nodeId: String(row.node_id),
    hostname: String(row.hostname),
    apiAddress: String(row.api_address),
    clusterAddress: String(row.cluster_address),
    version: String(row.version),
    lastEcho: row.last_echo as Date,
  }));
}
