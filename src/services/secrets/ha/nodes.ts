/**
 * The nodes `sys/ha-status` lists (ha/status.ts): the active server and the standbys it
 * heard from. Apart from the route file, so that the core and the node, which produce the
 * list, do not import a route table.
 *
 * @module
 */

/** One node of `sys/ha-status` (the reference's `HANode`, without its Enterprise and echo-timing fields). */
export interface HaStatusNode {
  readonly hostname: string;
  readonly api_address: string;
  readonly cluster_address: string;
  readonly active_node: boolean;
  /** When the active server last heard from this standby (RFC 3339); `null` for the active server. */
  readonly last_echo: string | null;
  readonly version: string;
}
