/**
 * Reply shapes of the secrets service's `sys/leader` and `sys/health` (reference/secrets.md
 * §3), which the seal, HA and overview screens read.
 */

/** `GET /v1/sys/leader`. */
export interface SysLeader {
  ha_enabled: boolean;
  is_self: boolean;
  active_time: string;
  leader_address: string;
  leader_cluster_address: string;
  performance_standby: boolean;
}

/** `GET /v1/sys/health` (with the codes that make every state a 200 where a screen asks so). */
export interface SysHealth {
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  performance_standby: boolean;
  version: string;
  cluster_name?: string;
  server_time_utc: number;
}
