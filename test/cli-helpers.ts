/**
 * What the in-process CLI suites against a real service share (test/cli-mesh.test.ts,
 * test/cli-sched.test.ts): `cairn` runs through `main()` with the service's address in the
 * environment, a scratch directory for the files a command reads, and an RS256 key pair
 * that signs the JWTs a JWT auth method accepts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { main } from '../src/cli/main.js';

/** What one `cairn` run wrote, filled in as it writes. */
interface CliOutput {
  stdout: string;
  stderr: string;
}

/** In-process `cairn` runs against one service (see {@link cliRunner}). */
export interface CliRunner {
  /** Starts `cairn argv` with `env` over the runner's; `out` fills as the command writes, `code` settles when it ends. */
  start(env: Record<string, string>, argv: string[], o?: { stdin?: string; shutdown?: AbortSignal }): { out: CliOutput; code: Promise<number> };
  /** Runs `cairn argv` to its end with `env` over the runner's and `stdin` as standard input. */
  cairn(env: Record<string, string>, argv: string[], stdin?: string): Promise<CliOutput & { code: number }>;
  /** Runs `cairn argv` as the management token; asserts exit 0 and returns stdout. */
  ok(...argv: string[]): Promise<string>;
}

/**
 * A runner whose runs see `env()` (the service's address) under their own variables, and
 * `rootEnv()` (the management token) as well in {@link CliRunner.ok}. Both are read at each
 * run, so they may name what a `before` hook sets up.
 */
export function cliRunner(o: { env: () => Record<string, string>; rootEnv: () => Record<string, string> }): CliRunner {
  const start: CliRunner['start'] = (env, argv, so = {}) => {
    const out: CliOutput = { stdout: '', stderr: '' };
    const code = main(
      argv,
      { ...o.env(), ...env },
      {
        stdout: (x) => (out.stdout += x),
        stderr: (x) => (out.stderr += x),
        readStdin: async () => so.stdin ?? '',
        shutdown: so.shutdown,
      },
    );
    return { out, code };
  };
  const cairn: CliRunner['cairn'] = async (env, argv, stdin = '') => {
    const r = start(env, argv, { stdin });
    const code = await r.code;
    return { code, ...r.out };
  };
  const ok: CliRunner['ok'] = async (...argv) => {
    const r = await cairn(o.rootEnv(), argv);
    assert.equal(r.code, 0, `cairn ${argv.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  return { start, cairn, ok };
}

/** A temporary directory: `file(name, text)` writes a file in it and returns its path; `remove()` deletes it all. */
export interface ScratchDir {
  readonly dir: string;
  file(name: string, text: string): string;
  remove(): void;
}

/** Makes a {@link ScratchDir} under the system's temp directory, its name starting with `prefix`. */
export function scratchDir(prefix: string): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A new RS256 key pair: the public key as SPKI PEM, and `sign(sub)`, a JWT for `sub` with audience `cairn`, valid 5 minutes. */
export async function jwtKeys(): Promise<{ publicPem: string; sign(sub: string): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  return {
    publicPem: await exportSPKI(publicKey),
    sign: (sub) =>
      new SignJWT({ sub, aud: 'cairn' })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey as CryptoKey),
  };
}
