/**
 * Standbys' echoes (pg-ha-echo.ts) on a throwaway PostgreSQL cluster (or `CAIRN_TEST_PG_URL`):
 * an echo creates the table and is upserted by node id; the active server reads the others'
 * echoes since it became active and within the expiry, by API address; a dropped echo is
 * gone; rows silent past the prune age are deleted, fresh ones kept.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { dropEcho, pruneEchoes, readEchoes, writeEcho, type HaEcho } from './pg-ha-echo.js';
import { quoteTableName } from './pg-schema.js';
import { startPgTestServer, type PgTestServer } from './testdata/pg-cluster.js';

const server: PgTestServer = await startPgTestServer();
const name = `cairn_echo_${randomBytes(4).toString('hex')}_ha_nodes`;
const table = quoteTableName(name);
const client = new pg.Client({ connectionString: server.url });
await client.connect();
const query = (text: string, values?: unknown[]) => client.query(text, values);

after(async () => {
  if (!server.throwaway) await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
  await server.stop();
});

const echo = (id: string, api: string): HaEcho => ({
  nodeId: id,
  hostname: `host-${id}`,
  apiAddress: api,
  clusterAddress: `https://${id}:8201`,
  version: '1.2.3',
});
/** The database's clock now (echo times are the database's). */
const dbNow = async () => ((await client.query('SELECT now() AS t')).rows[0] as { t: Date }).t;

describe('HA echoes in <table>_ha_nodes', () => {
  it("reads nothing before any echo (no table yet), then the others' echoes by address", async () => {
    const since = await dbNow();
    assert.deepEqual(await readEchoes(query, { haNodesTable: table, selfId: 'self', since: since, expiryMs: 60_000 }), []);
    await writeEcho(query, table, echo('b', 'http://10.0.0.3:8200'));
    await writeEcho(query, table, echo('a', 'http://10.0.0.2:8200'));
    await writeEcho(query, table, echo('self', 'http://10.0.0.1:8200'));
    await writeEcho(query, table, { ...echo('b', 'http://10.0.0.3:8200'), version: '1.2.4' });
    const rows = await readEchoes(query, { haNodesTable: table, selfId: 'self', since: since, expiryMs: 60_000 });
    assert.deepEqual(
      rows.map((r) => [r.nodeId, r.apiAddress, r.hostname, r.clusterAddress, r.version]),
      [
        ['a', 'http://10.0.0.2:8200', 'host-a', 'https://a:8201', '1.2.3'],
        ['b', 'http://10.0.0.3:8200', 'host-b', 'https://b:8201', '1.2.4'],
      ],
    );
    assert.ok(rows.every((r) => r.lastEcho instanceof Date && r.lastEcho.getTime() >= since.getTime()));
  });

  it('leaves out echoes from before the server became active and expired ones', async () => {
    await client.query(`UPDATE ${table} SET last_echo = now() - interval '20 seconds' WHERE node_id = 'a'`);
    const rows = await readEchoes(query, { haNodesTable: table, selfId: 'self', since: new Date(0), expiryMs: 15_000 });
    assert.deepEqual(
      rows.map((r) => r.nodeId),
      ['b'],
    );
    const later = new Date((await dbNow()).getTime() + 1000);
    assert.deepEqual(await readEchoes(query, { haNodesTable: table, selfId: 'self', since: later, expiryMs: 15_000 }), []);
  });

  it('drops an echo, and prunes rows silent past the age', async () => {
    await dropEcho(query, table, 'b');
    assert.deepEqual(
      (await readEchoes(query, { haNodesTable: table, selfId: 'self', since: new Date(0), expiryMs: 60_000 })).map((r) => r.nodeId),
      ['a'],
    );
    await client.query(`UPDATE ${table} SET last_echo = now() - interval '2 hours' WHERE node_id = 'a'`);
    await pruneEchoes(query, table, 60 * 60_000);
    const left = (await client.query(`SELECT node_id FROM ${table} ORDER BY node_id`)).rows.map((r: { node_id: string }) => r.node_id);
    assert.deepEqual(left, ['self']);
  });
});
