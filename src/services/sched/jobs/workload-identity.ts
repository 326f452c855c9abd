/**
 * The shape of a workload identity in a job (jobs/identity.ts decodes it; types.ts re-exports
 * it): a module of its own so that both the task (types.ts) and the service (services.ts)
 * shapes can name it without importing each other.
 *
 * @module
 */
/**
 * A workload identity of a task (reference `structs.WorkloadIdentity`, the job file's
 * `identity` block; reference/integration.md §4): the JWT the servers sign for it, handed to
 * the task as `secrets/cairn_token` / `secrets/cairn_<name>.jwt` (`File`) and `CAIRN_TOKEN` /
 * `CAIRN_TOKEN_<name>` (`Env`).
 */
export interface WorkloadIdentity {
  /** `default` for the task's default identity. */
  readonly Name: string;
  /** The `aud` claim; empty: the default identity's `cairn.dev`. */
  readonly Audience: readonly string[] | null;
  /** `noop` (or empty), `restart` or `signal`: what a refreshed token does to the task. */
  readonly ChangeMode: string;
  readonly ChangeSignal: string;
  readonly Env: boolean;
  readonly File: boolean;
  /** Where the file goes, relative to the task directory; empty: the default path under `secrets/`. */
  readonly Filepath: string;
  /** ns; 0: the token does not expire (and is not refreshed). */
  readonly TTL: number;
  /** A service identity's service (the reference's `ServiceName`; jobs/consul-identities.ts): its JWT carries `cairn_service`. Absent on task identities. */
  readonly ServiceName?: string;
}
