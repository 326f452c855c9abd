/**
 * Discovery-service KV benchmarks (issue 16 scope 4), against the `mesh` agent (ACLs on,
 * default deny) with its management token:
 * - `mesh-kv-read`: `GET /v1/kv/bench/r/<n>` over 1,000 pre-written keys (~100 B values);
 * - `mesh-kv-cas`: `PUT /v1/kv/bench/cas/<n>?cas=0` of distinct keys, each a check-and-set
 *   that creates the key (a durable write).
 */
import { type RequestTemplate, type Scenario, parallel } from './harness.js';
import { meshApi } from './mesh.js';

const READ_KEYS = 1000;
const VALUE = 'x'.repeat(100);

function tokenHeaders(token: string | undefined): Record<string, string> {
  if (!token) throw new Error('mesh server reported no management token');
  return { 'X-Mesh-Token': token };
}

export const meshKvRead: Scenario = {
  name: 'mesh-kv-read',
  description: `discovery GET /v1/kv/bench/r/<n>, ${READ_KEYS} keys, 100 B values, ACLs on, management token`,
  server: 'mesh',
  async setup(ctx) {
    await parallel(READ_KEYS, 16, async (i) => {
      await meshApi(ctx.servers.mesh, 'PUT', `/v1/kv/bench/r/${i}`, { body: VALUE });
    });
  },
  async check(ctx) {
    const r = await meshApi(ctx.servers.mesh, 'GET', `/v1/kv/bench/r/${READ_KEYS - 1}`);
    const [e] = r.json as { Key: string; Value: string }[];
    if (e?.Key !== `bench/r/${READ_KEYS - 1}` || Buffer.from(e.Value, 'base64').toString() !== JSON.stringify(VALUE) || r.index <= 0) {
      throw new Error(`mesh-kv-read check: unexpected reply ${r.text.slice(0, 300)}`);
    }
    await meshApi(ctx.servers.mesh, 'GET', '/v1/kv/bench/r/0', { token: null, expect: 403 });
  },
  requests(ctx): RequestTemplate[] {
    const headers = tokenHeaders(ctx.servers.mesh.token);
    return Array.from({ length: READ_KEYS }, (_, i) => ({ method: 'GET', path: `/v1/kv/bench/r/${i}`, headers }));
  },
};

export const meshKvCas: Scenario = {
  name: 'mesh-kv-cas',
  description: 'discovery PUT /v1/kv/bench/cas/<n>?cas=0, distinct keys (create-only CAS), 100 B values',
  server: 'mesh',
  async check(ctx) {
    const server = ctx.servers.mesh;
    const first = await meshApi(server, 'PUT', '/v1/kv/bench/cas-check?cas=0', { body: VALUE });
    const second = await meshApi(server, 'PUT', '/v1/kv/bench/cas-check?cas=0', { body: VALUE });
    if (first.json !== true || second.json !== false) throw new Error(`mesh-kv-cas check: ${first.text} then ${second.text}`);
  },
  requests(ctx): RequestTemplate[] {
    const headers = tokenHeaders(ctx.servers.mesh.token);
    return [{ method: 'PUT', headers, body: VALUE, distinctPath: '/v1/kv/bench/cas/{n}?cas=0' }];
  },
};
