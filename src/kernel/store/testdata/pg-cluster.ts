/**
 * A PostgreSQL server for tests (issue 8 scope 5): either the database named by the
 * environment variable `CAIRN_TEST_PG_URL`, or a throwaway cluster this helper makes
 * itself with `initdb` + `pg_ctl` in a temp directory, on a free loopback port, with its
 * unix socket in that directory, and removes again on {@link PgTestServer.stop} (and, as
 * a safety net, when the test process exits).
 *
 * The throwaway cluster (recipe measured in reference/ecosystem.md §4, ~0.9 s):
 * - binaries: `initdb`/`pg_ctl` on `PATH`, else the newest `/usr/lib/postgresql/<v>/bin`
 *   (Debian's layout). Missing binaries are an error, never a skip: CI installs Debian's
 *   `postgresql` package (`.ci/run`), so a PostgreSQL suite that cannot run fails loudly.
 * - `initdb` refuses to run as root, so as root the server runs as the `postgres` user
 *   (`runuser -u postgres --`, util-linux, on every Debian); otherwise as the caller.
 * - `--locale-provider=icu --icu-locale=en` where the server supports it (15+): the
 *   database's default collation then sorts `"B"` after `"a"`, so a store that forgot
 *   `COLLATE "C"` fails the byte-order tests instead of passing by luck.
 * - TCP logins need the superuser password (`scram-sha-256`), so a wrong password in a
 *   URL is refused as it would be in production; the unix socket trusts local users.
 * - `fsync=off`: tests check what the store acknowledges, not the disk; commit
 *   throughput of a durable server is measured by the benchmarks, not here (they pass
 *   `{ durable: true }`, which keeps PostgreSQL's default `fsync=on`, `full_page_writes=on`).
 *
 * @module
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The environment variable naming an existing database to test against instead. */
export const TEST_PG_URL_ENV = 'CAIRN_TEST_PG_URL';

/** A PostgreSQL database the tests may create and drop tables in. */
export interface PgTestServer {
  /** `postgres://` URL (with the password) of a superuser on the test database. */
  readonly url: string;
  /** True when this helper started the cluster (then {@link restart} works). */
  readonly throwaway: boolean;
  /** Where the throwaway cluster lives (data, socket, log); undefined for `CAIRN_TEST_PG_URL`. */
  readonly dir: string | undefined;
  /**
   * Restarts the server: every connection is closed by the server and the port refuses
   * connections for a moment. `mode` is `pg_ctl`'s shutdown mode: `fast` (default: a clean
   * shutdown) or `immediate` (a crash: every server process quits at once and the start
   * runs crash recovery from the WAL). Throwaway clusters only.
   * @throws Error for a `CAIRN_TEST_PG_URL` database.
   */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server and removes its directory (a no-op for `CAIRN_TEST_PG_URL`). Idempotent. */
  stop(): Promise<void>;
}

/** Where Debian puts the server binaries; the newest version wins. */
const DEBIAN_PG_LIB = '/usr/lib/postgresql';

/**
 * The directory holding `initdb` and `pg_ctl`: from `PATH` first, then Debian's
 * `/usr/lib/postgresql/<version>/bin`.
 * @throws Error naming what was searched when neither has both programs.
 */
export function findPgBin(env: NodeJS.ProcessEnv = process.env): string {
  const has = (dir: string) =>
    ['initdb', 'pg_ctl'].every((p) => {
      try {
        accessSync(join(dir, p), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir !== '' && has(dir)) return dir;
  const versions = existsSync(DEBIAN_PG_LIB)
    ? readdirSync(DEBIAN_PG_LIB)
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (has(join(DEBIAN_PG_LIB, v, 'bin'))) return join(DEBIAN_PG_LIB, v, 'bin');
  throw new Error(
    `PostgreSQL server binaries not found: no initdb and pg_ctl on PATH nor in ${DEBIAN_PG_LIB}/*/bin. ` +
      `Install Debian's "postgresql" package (.ci/run does), or set ${TEST_PG_URL_ENV} to a database URL.`,
  );
}

/** A loopback TCP port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program as the user the cluster belongs to. @throws Error with its output when it fails. */
function runPg(bin: string, program: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), [...args]];
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw new Error(`${program}: cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${program} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`.trimEnd());
  return r;
}

/** {@link runPg} without blocking the event loop (the test process keeps serving its sockets meanwhile). */
function runPgAsync(bin: string, program: string, args: readonly string[], cwd: string): Promise<void> {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), [...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', (err) => reject(new Error(`${program}: cannot run ${cmd}: ${err.message}`)));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} failed (exit ${code}):\n${out}`.trimEnd()))));
  });
}

/** The major version of the server in `bin` (`pg_ctl --version` → `pg_ctl (PostgreSQL) 15.18 …`). */
function majorVersion(bin: string): number {
  const r = spawnSync(join(bin, 'pg_ctl'), ['--version'], { encoding: 'utf8' });
  return Number(/\(PostgreSQL\)\s+(\d+)/.exec(r.stdout ?? '')?.[1] ?? 0);
}

/**
 * The test database: `CAIRN_TEST_PG_URL` when set (nothing is started or removed),
 * else a throwaway cluster (see the module doc). Call {@link PgTestServer.stop} when
 * done (e.g. in `after`). `options.durable` starts the throwaway cluster with `fsync` and
 * `full_page_writes` on (PostgreSQL's defaults; for benchmarks), instead of off.
 * @throws Error when the binaries are missing, or `initdb`/`pg_ctl` fail (with their
 *   output and the server log).
 */
export async function startPgTestServer(env: NodeJS.ProcessEnv = process.env, options: { readonly durable?: boolean } = {}): Promise<PgTestServer> {
  const external = env[TEST_PG_URL_ENV];
  if (external) {
    return {
      url: external,
      throwaway: false,
      dir: undefined,
      restart: async () => {
        throw new Error(`cannot restart the server of ${TEST_PG_URL_ENV}`);
      },
      stop: async () => undefined,
    };
  }

  const bin = findPgBin(env);
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const password = randomBytes(12).toString('hex');
  let started = false;
  const stopSync = (mode: 'fast' | 'immediate'): void => {
    if (started) {
      started = false;
      try {
        runPg(bin, 'pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'], dir);
      } catch {
        // Already down: removing the directory is all that is left.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => stopSync('immediate');
  process.once('exit', onExit);
  try {
    if (root) {
      try {
        chownSync(dir, uidOf('postgres'), gidOf('postgres'));
      } catch (err) {
        throw new Error(`running as root, the cluster must belong to the "postgres" user: ${(err as Error).message}`);
      }
    }
    const pwfile = join(dir, 'pw');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (root) chownSync(pwfile, uidOf('postgres'), gidOf('postgres'));
    const locale = majorVersion(bin) >= 15 ? ['--locale-provider=icu', '--icu-locale=en', '--locale=C.UTF-8'] : ['--locale=C.UTF-8'];
    const initdbArgs = ['-D', data, '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`];
    try {
      runPg(bin, 'initdb', [...initdbArgs, ...locale], dir);
    } catch (err) {
      // An ICU-less build or a missing C.UTF-8 locale: fall back to the plain C locale.
      rmSync(data, { recursive: true, force: true });
      try {
        runPg(bin, 'initdb', [...initdbArgs, '--locale=C'], dir);
      } catch {
        throw err;
      }
    }
    rmSync(pwfile);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${options.durable ? '' : ' -c fsync=off -c full_page_writes=off'}`;
      try {
        runPg(bin, 'pg_ctl', ['-D', data, '-o', opts, '-l', log, '-w', '-t', '60', 'start'], dir);
        started = true;
        break;
      } catch (err) {
        // Another process may have taken the port in between: try another one.
        if (attempt >= 3) throw new Error(`${(err as Error).message}\nserver log:\n${tail(log)}`);
      }
    }
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    return {
      url,
      throwaway: true,
      dir,
      restart: (mode = 'fast') => runPgAsync(bin, 'pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', '-l', log, 'restart'], dir),
      stop: async () => {
        process.removeListener('exit', onExit);
        stopSync('fast');
      },
    };
  } catch (err) {
    process.removeListener('exit', onExit);
    stopSync('immediate');
    throw err;
  }
}

/** The last lines of a log file (for error messages), or a note that there is none. */
function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

function uidOf(user: string): number {
  return idOf(user, '-u');
}

function gidOf(user: string): number {
  return idOf(user, '-g');
}

/** `id -u USER` / `id -g USER`. @throws Error when the user does not exist. */
function idOf(user: string, flag: '-u' | '-g'): number {
  const r = spawnSync('id', [flag, user], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`no "${user}" user (${(r.stderr ?? '').trim()}); Debian's postgresql package creates it`);
  }
  return Number(r.stdout.trim());
}
