// Which state key an agent's storage belongs to (issue 14 item 1; agent-state.ts,
// state-key.ts): the fingerprint row is written once, first writer wins; an agent with
// another key, or none, refuses to start naming both fingerprints and the file to copy,
// and leaves nothing behind; a key given in the config needs no key file. SQLite in a temp
// directory and the throwaway PostgreSQL cluster (testdata/pg-cluster.ts), where two
// agents open one empty table at the same moment.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../log/logger.js';
import { openAgentState, type AgentStateOptions } from './agent-state.js';
import { aesGcmCodec } from './aead-codec.js';
import { SqliteBackend } from './sqlite.js';
import { StateStore, type TableSpec } from './state.js';
import { newStateKey, stateKeyFingerprint } from './state-key.js';
import { startPgTestServer } from './testdata/pg-cluster.js';

const TABLES: TableSpec[] = [{ name: 'things' }];
const dir = mkdtempSync(join(tmpdir(), 'cairn-agent-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Options for an agent whose data directory is `<dir>/<name>`. */
function agent(name: string, o: Partial<AgentStateOptions> = {}): AgentStateOptions {
  const data = join(dir, name);
  mkdirSync(data, { recursive: true });
  return {
    sqlitePath: join(data, 'state.db'),
    keyFile: join(data, 'test-state.key'),
    keySetting: 'encrypt',
    tables: TABLES,
    log: silentLogger(),
    applicationName: 'cairn-test',
    ...o,
  };
}

/** Opens, writes one document (so the state is encrypted with the key), closes. */
async function writeOne(o: AgentStateOptions, id: string): Promise<void> {
  const { backend, state, shared } = await openAgentState(o);
  if (shared) state.setWritable(true);
  await state.txn((tx) => tx.put('things', id, { id }));
  await backend.close();
}

describe('an agent state on SQLite', () => {
  it('makes its key file (0600) on first start and uses it again on the next', async () => {
    const o = agent('first');
    await writeOne(o, 'a');
    assert.equal(statSync(o.keyFile).mode & 0o777, 0o600);
    const key = readFileSync(o.keyFile, 'utf8');
    const again = await openAgentState(o);
    assert.deepEqual(
      again.state.list<{ id: string }>('things').map((d) => d.id),
      ['a'],
    );
    await again.backend.close();
    assert.equal(readFileSync(o.keyFile, 'utf8'), key);
  });

  it('refuses to start without the key file the state was written with, saying what to copy where, and makes no key file', async () => {
    const o = agent('lost');
    await writeOne(o, 'a');
    const print = stateKeyFingerprint(Buffer.from(readFileSync(o.keyFile, 'utf8'), 'base64'));
    rmSync(o.keyFile);
    await assert.rejects(openAgentState(o), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(`is encrypted with the state key of fingerprint ${print}, and this agent has none \\(no ${o.keyFile}, no encrypt\\)`),
      );
      assert.match(
        err.message,
        new RegExp(
          `copy test-state\\.key from the data directory of the agent that made it .* to ${o.keyFile}, or give every agent that key with encrypt = "env://NAME"`,
        ),
      );
      return true;
    });
    assert.ok(!existsSync(o.keyFile), 'no new key file');
  });

  it('refuses another key file naming both fingerprints, and leaves the file alone', async () => {
    const o = agent('other');
    await writeOne(o, 'a');
    const theirs = newStateKey();
    writeFileSync(o.keyFile, theirs.text);
    await assert.rejects(
      openAgentState(o),
      /was written with another state key \(fingerprint hmac-sha256:[0-9a-f]{32}\) than .*test-state\.key \(fingerprint hmac-sha256:[0-9a-f]{32}\): every agent sharing it needs the same key/,
    );
    assert.equal(readFileSync(o.keyFile, 'utf8'), theirs.text);
  });

  it('takes the key from the config: no key file read or made; another config key is refused', async () => {
    const { key } = newStateKey();
    const o = agent('configured', { key });
    await writeOne(o, 'a');
    assert.deepEqual(
      readdirSync(join(dir, 'configured')).filter((f) => f.endsWith('.key')),
      [],
    );
    const again = await openAgentState(o);
    assert.equal(again.state.count('things'), 1);
    await again.backend.close();
    await assert.rejects(
      openAgentState({ ...o, key: newStateKey().key }),
      /than the key of encrypt \(fingerprint .*; set encrypt to the key of the agent that made it .*: its encrypt, or the test-state\.key in its data directory/,
    );
  });

  it('a state from before fingerprints were stored: the right key records its fingerprint, another key is refused and its new file removed', async () => {
    const o = agent('legacy');
    const { key, text } = newStateKey();
    const backend = SqliteBackend.open({ path: o.sqlitePath });
    const state = await StateStore.open(backend, TABLES, aesGcmCodec(key));
    await state.txn((tx) => tx.put('things', 'old', { id: 'old' }));
    await backend.close();

    await assert.rejects(openAgentState(o), /was written with another state key than .*test-state\.key \(fingerprint .*cannot decode/s);
    assert.ok(!existsSync(o.keyFile), 'the key file this start made is removed again');
    writeFileSync(o.keyFile, text);
    const opened = await openAgentState(o);
    assert.equal(opened.state.count('things'), 1);
    await opened.backend.close();
    await assert.rejects(openAgentState({ ...o, key: newStateKey().key }), new RegExp(`fingerprint ${stateKeyFingerprint(key)}\\) than the key of encrypt`));
  });
});

describe('agents opening one empty PostgreSQL table at the same moment', async () => {
  const server = await startPgTestServer();
  after(() => server.stop());
  const storage = (table: string) => ({ connectionUrl: server.url, table, maxParallel: 2 });

  it('each with its own new key: exactly one key wins; the other refuses, naming the winner, and removes the key file it made', async () => {
    for (let round = 0; round < 5; round++) {
      const table = `cairn_key_${randomBytes(4).toString('hex')}`;
      const [a, b] = [agent(`pg-a${round}`, { storage: storage(table) }), agent(`pg-b${round}`, { storage: storage(table) })];
      const results = await Promise.allSettled([openAgentState(a), openAgentState(b)]);
      const opened = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = results.flatMap((r, i) => (r.status === 'rejected' ? [{ err: r.reason as Error, o: [a, b][i]! }] : []));
      assert.equal(opened.length, 1, `round ${round}: exactly one agent opens (${refused.map((r) => r.err.message).join('; ')})`);
      const winner = [a, b].find((o) => existsSync(o.keyFile))!;
      const print = stateKeyFingerprint(Buffer.from(readFileSync(winner.keyFile, 'utf8'), 'base64'));
      assert.equal(refused.length, 1);
      assert.match(
        refused[0]!.err.message,
        new RegExp(
          `PostgreSQL table ${table} \\(.*\\) (was written with another state key \\(fingerprint ${print}\\)|is encrypted with the state key of fingerprint ${print})`,
        ),
      );
      assert.match(
        refused[0]!.err.message,
        new RegExp(`copy test-state\\.key from the data directory of the agent that made it .* to ${refused[0]!.o.keyFile}`),
      );
      assert.ok(!existsSync(refused[0]!.o.keyFile), 'the refused agent left no key file');
      await opened[0]!.backend.close();

      // Copying the winner's key file, as the message says, lets the other agent start.
      writeFileSync(refused[0]!.o.keyFile, readFileSync(winner.keyFile));
      const second = await openAgentState(refused[0]!.o);
      await second.backend.close();
    }
  });

  it('both given one key in the config: both open, and each reads what the other wrote', async () => {
    const table = `cairn_key_${randomBytes(4).toString('hex')}`;
    const { key } = newStateKey();
    const [a, b] = [agent('pg-conf-a', { storage: storage(table), key }), agent('pg-conf-b', { storage: storage(table), key })];
    const [x, y] = await Promise.all([openAgentState(a), openAgentState(b)]);
    await Promise.all([x.backend.close(), y.backend.close()]);
    await writeOne(a, 'from-a');
    const again = await openAgentState(b);
    assert.deepEqual(
      again.state.list<{ id: string }>('things').map((d) => d.id),
      ['from-a'],
    );
    await again.backend.close();
    assert.ok(!existsSync(a.keyFile) && !existsSync(b.keyFile), 'no key file made');
  });
});
