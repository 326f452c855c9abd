/**
 * `GET /v1/volumes?namespace=*&filter=…` with a token that may list one namespace only: the
 * filter is evaluated on the volumes it may list and never on the others, so neither the
 * result nor a filter evaluation error tells anything about volumes of another namespace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVolume, startCsi, type CsiFixture } from './csi.js';
import { clientToken } from './helpers.js';

describe('scheduler CSI volume list filter and namespace ACL', () => {
  let f: CsiFixture;
  let lister: string;
  before(async () => {
    f = await startCsi([{ id: 'hostpath' }]);
    assert.equal((await f.req('PUT', '/v1/namespace/hidden', { body: { Name: 'hidden' } })).status, 200);
    await createVolume(f, 'seen', 'hostpath', { over: { MountOptions: { FsType: 'ext4' } } });
    // No mount options: `MountOptions.FsType` cannot be evaluated on this one.
    await createVolume(f, 'unseen', 'hostpath', { over: {}, query: '?namespace=hidden' });
    lister = (await clientToken(f.url, 'list-default', 'namespace "default" { capabilities = ["csi-list-volume"] }')).secret;
  });
  after(() => f.stop());

  it('evaluates the filter only on volumes of namespaces the token may list', async () => {
    const q = `/v1/volumes?type=csi&namespace=*&filter=${encodeURIComponent('MountOptions.FsType == "ext4"')}`;
    const mine = await f.req('GET', q, { token: lister });
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(
      mine.json.map((v: { ID: string }) => v.ID),
      ['seen'],
    );
    // The management token sees both, so the filter fails on the hidden volume, as before.
    const all = await f.req('GET', q);
    assert.equal(all.status, 400, all.text);
    assert.match(all.text, /^failed to read result page: /);
  });
});
