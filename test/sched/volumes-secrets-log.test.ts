/**
 * Volume secrets never reach the log (issue 7 "Must show"): the agent logs at `trace` into
 * memory while volumes are created, read, listed, deleted and snapshotted with secrets in
 * bodies and in `X-Sched-CSI-Secrets`, and while plugin calls fail; no secret value appears
 * in any log line, reply or event.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createVolume, startCsi, type CsiFixture } from './csi.js';

const SECRETS = ['s3cr3t-body-value', 's3cr3t-header-value', 's3cr3t-snapshot-value'];

describe('CSI secrets and the log', () => {
  let f: CsiFixture;
  const lines: string[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    f = await startCsi([{ id: 'hostpath' }], { log: pino({ level: 'trace' }, sink) });
  });
  after(() => f.stop());

  it('logs no secret value, on success and on failure', async () => {
    const replies: string[] = [];
    replies.push((await createVolume(f, 'logged', 'hostpath', { over: { Secrets: { password: SECRETS[0] } } })).text);
    replies.push((await f.req('GET', '/v1/volume/csi/logged')).text);
    replies.push((await f.req('GET', '/v1/volumes?type=csi')).text);
    replies.push(
      (await f.req('POST', '/v1/volumes/snapshot', { body: { Snapshots: [{ SourceVolumeID: 'logged', Name: 'snap', Secrets: { key: SECRETS[2] } }] } })).text,
    );
    replies.push((await f.req('GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=10', { headers: { 'X-Sched-CSI-Secrets': `key=${SECRETS[1]}` } })).text);
    // A failing plugin call: the plugin is gone, the delete fails and is logged as such.
    await f.plugins.get('hostpath')!.close();
    const failed = await f.req('DELETE', '/v1/volume/csi/logged/delete', { headers: { 'X-Sched-CSI-Secrets': `token=${SECRETS[1]}` } });
    assert.ok(failed.status >= 400, failed.text);
    replies.push(failed.text);
    // Unknown volume with secrets in the header, and a malformed body carrying secrets.
    replies.push((await f.req('DELETE', '/v1/volume/csi/nope/delete', { headers: { 'X-Sched-CSI-Secrets': `token=${SECRETS[1]}` } })).text);
    replies.push((await f.req('PUT', '/v1/volume/csi/bad', { body: { Volumes: [{ ID: 'bad', PluginID: 7, Secrets: { password: SECRETS[0] } }] } })).text);

    assert.ok(lines.length > 0, 'the agent logged something');
    for (const secret of SECRETS) {
      assert.ok(!lines.some((l) => l.includes(secret)), `secret ${secret} in the log`);
      assert.ok(!replies.some((r) => r.includes(secret)), `secret ${secret} in a reply`);
    }
  });
});
