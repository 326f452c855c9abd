/**
 * The connection messages of the controller↔worker protocol (`proto/cluster.proto`), which
 * the session authority answers (cluster-authority.ts), and what the controller knows of a
 * worker. Apart from cluster.ts, the gRPC server, which hands those calls to the authority.
 *
 * @module
 */

/** The `AuthorizeConnectionRequest` message. */
export interface AuthorizeConnectionRequest {
  readonly worker_name: string;
  readonly authorization_token: string;
  readonly client_address: string;
}

/** The `AuthorizeConnectionResponse` message. */
export interface AuthorizeConnectionResponse {
  readonly session_id: string;
  readonly connection_id: string;
  readonly endpoint: string;
  /** Epoch milliseconds. */
  readonly expiration_unix_ms: number;
}

/** The `ConnectionClosedRequest` message. */
export interface ConnectionClosedRequest {
  readonly worker_name: string;
  readonly session_id: string;
  readonly connection_id: string;
  readonly bytes_up: number;
  readonly bytes_down: number;
  readonly reason: string;
}

/** What the controller knows of one worker. */
export interface KnownWorker {
  readonly name: string;
  /** `host:port` of its proxy listener; empty without one. */
  readonly address: string;
  /** Epoch milliseconds of the last status report received. */
  readonly lastStatusMs: number;
  readonly sessionCount: number;
  readonly state: string;
  /** `Cairn v<version>` as the worker reported it; `''` when it did not. */
  readonly releaseVersion: string;
  /** The worker's tags: key → values (`worker { tags { … } }`). */
  readonly tags: Readonly<Record<string, readonly string[]>>;
}
