/**
 * Workload identities between real processes (issue 27 scopes 1 and 2): a `cairn sched
 * agent` server and a client-only agent. The client-only agent serves the servers' JWKS
 * (its copy, watched with blocking queries); a task's identity, written by the client,
 * verifies with `jose`'s `createRemoteJWKSet` against the client agent as well as the server;
 * after a rotation the client's copy has the new key, and the task's token, signed by the
 * retired key, still verifies until that key is deleted.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { killTasksUnder, startCairnProcess, until, type ServerProcess } from '../processes.js';
import { shTask } from './client-helpers.js';
import { call } from './helpers.js';

/** Verifies `jwt` against the JWKS of the agent at `base` (a fresh key set each time). */
async function verifies(base: string, jwt: string): Promise<boolean> {
  try {
    await jwtVerify(jwt, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), { audience: 'cairn-sched' });
    return true;
  } catch {
    return false;
  }
}

const kids = (jwks: { keys: { kid: string }[] }) => [...new Set(jwks.keys.map((k) => k.kid))].sort();

describe('workload identities end to end: a server and a client-only agent', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-wi-e2e-'));
  const procs: ServerProcess[] = [];
  after(async () => {
    for (const p of procs) await p.kill();
    killTasksUnder(root); // tasks of agents killed with SIGKILL
    rmSync(root, { recursive: true, force: true });
  });

  async function agent(name: string, hcl: string, ready: string): Promise<ServerProcess> {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.hcl'), `data_dir = "${dir}/data"\nname = "${name}"\nports { http = 0 }\n${hcl}`);
    const p = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, ready);
    procs.push(p);
    return p;
  }

  it('serves the JWKS from the client agent, verifies a task identity there, and keeps it valid across a rotation', { timeout: 120_000 }, async () => {
    const server = await agent('server', 'acl { enabled = true }', 'scheduler service listening');
    const boot = await call(server.url, 'POST', '/v1/acl/bootstrap');
    assert.equal(boot.status, 200, boot.text);
    const token = boot.json.SecretID as string;
    const client = await agent(
      'client',
      `client {\n  enabled = true\n  servers = ["${new URL(server.url).host}"]\n  token = "${token}"\n}\nplugin "raw_exec" {\n  config { enabled = true }\n}`,
      'scheduler client-only agent listening',
    );
    const serverJwks = (await call(server.url, 'GET', '/.well-known/jwks.json')).json;
    assert.equal(kids(serverJwks).length, 1);
    await until('the client agent serves the same JWKS', 20_000, async () => {
      const r = await call(client.url, 'GET', '/.well-known/jwks.json');
      return r.status === 200 && JSON.stringify(r.json) === JSON.stringify(serverJwks) ? true : undefined;
    });

    await until('a ready node', 30_000, async () => {
      const r = await call(server.url, 'GET', '/v1/nodes', { token });
      return (r.json as { Status: string }[]).some((n) => n.Status === 'ready') ? true : undefined;
    });
    const wi = { ID: 'wi', Type: 'service', TaskGroups: [{ Name: 'g', Count: 1, Tasks: [shTask('t', 'sleep 300', { Identity: { File: true } })] }] };
    assert.equal((await call(server.url, 'POST', '/v1/jobs', { token, body: { Job: wi } })).status, 200);
    const allocId = await until('the allocation running', 30_000, async () => {
      const r = await call(server.url, 'GET', '/v1/job/wi/allocations', { token });
      const a = (r.json as { ID: string; ClientStatus: string }[])[0];
      return a?.ClientStatus === 'running' ? a.ID : undefined;
    });
    const jwt = readFileSync(join(root, 'client', 'data', 'alloc', allocId, 't', 'secrets', 'cairn_token'), 'utf8');
    assert.ok(await verifies(client.url, jwt), 'verified with the client agent JWKS');
    assert.ok(await verifies(server.url, jwt), 'verified with the server JWKS');

    const rotated = await call(server.url, 'PUT', '/v1/operator/keyring/rotate', { token });
    assert.equal(rotated.status, 200, rotated.text);
    const newKid = rotated.json.Key.KeyID as string;
    await until('the client agent has the new key', 20_000, async () => {
      const r = await call(client.url, 'GET', '/.well-known/jwks.json');
      return kids(r.json).includes(newKid) ? true : undefined;
    });
    assert.ok(await verifies(client.url, jwt), 'a token of the retired key still verifies at the client agent');
    // The identity still works as a token on the servers' API for its own job.
    assert.equal((await call(server.url, 'GET', '/v1/job/wi', { token: jwt })).status, 200);
  });
});
