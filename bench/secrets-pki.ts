/**
 * PKI issuing throughput (issue 28 "Measure": PKI EC P-256 certificates issued per
 * second): `POST /v1/pki/issue/bench` on a secrets server (a root EC P-256 CA; the role
 * issues EC P-256 leaves, stored, no lease) against a bare node:http server in its own
 * process doing the same key generation and signing with @peculiar/x509
 * (bench/secrets-pki-bare.ts), in interleaved rounds of the same run: certificates per
 * second and server CPU per certificate (/proc, all threads) of each. Load: wrk (else
 * autocannon) through the harness, 8 connections (each issue is CPU-bound work).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { cpuSeconds } from './cpu.js';
import { api, median, runScenarioLoad, type BenchConfig, type RequestTemplate } from './harness.js';
import { startServer } from './servers.js';

/** Figures of one side over the measured rounds. */
export interface IssueFigures {
  readonly perSecond: number[];
  /** Server CPU per certificate, µs. */
  readonly cpuUs: number[];
}

const CONNECTIONS = 8;

async function startBare(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'secrets-pki-bare.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (b: Buffer) => resolve(b.toString().trim()));
    child.once('exit', (code) => reject(new Error(`bare PKI server exited (code ${code})`)));
  });
  return { url, child };
}

/** One load run against `url` with `requests`: certificates per second and CPU µs per certificate of `pid`. */
async function round(url: string, pid: number, requests: RequestTemplate[], seconds: number): Promise<{ perSecond: number; cpuUs: number }> {
  const before = cpuSeconds(pid) ?? NaN;
  const r = await runScenarioLoad(url, requests, { seconds, connections: CONNECTIONS });
  const used = (cpuSeconds(pid) ?? NaN) - before;
  if (r.non2xx || r.errors) throw new Error(`secrets-pki: ${r.non2xx} non-2xx replies, ${r.errors} errors against ${url}`);
  return { perSecond: r.reqPerSec, cpuUs: (used * 1e6) / r.totalRequests };
}

/**
 * Runs `config.rounds` interleaved rounds of `config.seconds` each (after one warm-up of
 * `config.warmupSeconds`), Cairn first in even rounds and bare first in odd ones.
 * Throws on any non-2xx reply or a check that fails (a reply that is not a certificate).
 */
export async function measurePkiIssue(config: BenchConfig): Promise<{ cairn: IssueFigures; bare: IssueFigures }> {
  const secrets = await startServer('secrets');
  const bare = await startBare();
  try {
    await api(secrets, 'POST', '/v1/sys/mounts/pki', { body: { type: 'pki', config: { max_lease_ttl: '87600h' } } });
    await api(secrets, 'POST', '/v1/pki/root/generate/internal', { body: { common_name: 'bench root', key_type: 'ec', ttl: '8760h' } });
    await api(secrets, 'POST', '/v1/pki/roles/bench', { body: { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', ttl: '1h' } });
    const body = JSON.stringify({ common_name: 'bench.example.test' });
    const cairnReq: RequestTemplate[] = [
      { method: 'POST', path: '/v1/pki/issue/bench', headers: { 'content-type': 'application/json', 'X-Secrets-Token': secrets.token! }, body },
    ];
    const bareReq: RequestTemplate[] = [
      { method: 'POST', path: '/issue', headers: { 'content-type': 'application/json', 'X-Secrets-Token': secrets.token! }, body },
    ];
    const check = (await api(secrets, 'POST', '/v1/pki/issue/bench', { body: JSON.parse(body) })).json as { data?: { certificate?: string } };
    if (!check.data?.certificate?.startsWith('-----BEGIN CERTIFICATE-----')) throw new Error('secrets-pki check: no certificate in the reply');
    const bareCheck = (await (await fetch(`${bare.url}/issue`, { method: 'POST', body })).json()) as { data?: { certificate?: string } };
    if (!bareCheck.data?.certificate?.startsWith('-----BEGIN CERTIFICATE-----')) throw new Error('secrets-pki check: bare gave no certificate');
    await round(secrets.url, secrets.pid, cairnReq, config.warmupSeconds);
    await round(bare.url, bare.child.pid!, bareReq, config.warmupSeconds);
    const cairn = { perSecond: [] as number[], cpuUs: [] as number[] };
    const base = { perSecond: [] as number[], cpuUs: [] as number[] };
    for (let i = 0; i < config.rounds; i++) {
      const sides = [
        async () => {
          const r = await round(secrets.url, secrets.pid, cairnReq, config.seconds);
          cairn.perSecond.push(r.perSecond);
          cairn.cpuUs.push(r.cpuUs);
        },
        async () => {
          const r = await round(bare.url, bare.child.pid!, bareReq, config.seconds);
          base.perSecond.push(r.perSecond);
          base.cpuUs.push(r.cpuUs);
        },
      ];
      for (const side of i % 2 ? sides.reverse() : sides) await side();
    }
    return { cairn, bare: base };
  } finally {
    bare.child.kill('SIGKILL');
    await secrets.close();
  }
}

/** One report line of {@link measurePkiIssue}'s figures (medians, with each round). */
export function describePkiIssue(f: { cairn: IssueFigures; bare: IssueFigures }, fmtInt: (n: number) => string): string {
  const each = (xs: number[]) => xs.map(fmtInt).join(' / ');
  const ratio = median(f.cairn.perSecond) / median(f.bare.perSecond);
  return (
    `- PKI issue/:role, EC P-256 key generated and certificate signed per request, stored (${CONNECTIONS} connections): ` +
    `**${fmtInt(median(f.cairn.perSecond))} certificates/s** (rounds ${each(f.cairn.perSecond)}), ` +
    `**${fmtInt(median(f.cairn.cpuUs))} µs server CPU per certificate** (rounds ${each(f.cairn.cpuUs)}); ` +
    `bare node:http doing the same key generation and signing: ${fmtInt(median(f.bare.perSecond))} certificates/s (rounds ${each(f.bare.perSecond)}), ` +
    `${fmtInt(median(f.bare.cpuUs))} µs CPU each (rounds ${each(f.bare.cpuUs)}); Cairn at ${(ratio * 100).toFixed(0)} % of bare`
  );
}
