// Unit tests of the pure KV v2 domain logic (reference/secrets.md §2.4–§2.10).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  CAS_REQUIRED_WARNING,
  DEFAULT_KV_CONFIG,
  InputError,
  addVersion,
  applyConfigUpdate,
  applyMetadataPatch,
  applyMetadataUpdate,
  checkCas,
  customMetadataErrors,
  destroyVersions,
  effectiveDeleteAfter,
  effectiveMaxVersions,
  formatTime,
  hasMetadataFields,
  mergePatch,
  newKeyMetadata,
  parseIntField,
  parseVersions,
  renderConfig,
  renderMetadata,
  renderVersionMeta,
  softDeleteCurrent,
  softDeleteVersions,
  subkeys,
  undeleteVersions,
  versionState,
  type KeyMetadata,
  type KvConfig,
} from './versions.js';

const NOW = new Date('2024-01-02T03:04:05.123Z');
const later = (s: number): Date => new Date(NOW.getTime() + s * 1000);
const cfg = (over: Partial<KvConfig> = {}): KvConfig => ({ ...DEFAULT_KV_CONFIG, ...over });

/** A key with `n` versions written one second apart under `config`. */
function keyWith(n: number, config: KvConfig = cfg(), over: Partial<KeyMetadata> = {}): KeyMetadata {
  const key = { ...newKeyMetadata(NOW), ...over };
  for (let i = 0; i < n; i++) addVersion(key, config, later(i));
  return key;
}

/** Asserts `fn` throws a InputError whose message satisfies `match`. */
function throwsInput(fn: () => unknown, match: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    if (typeof match === 'string') assert.equal(e.message, match);
    else assert.match(e.message, match);
    return true;
  });
}

describe('effective settings (§2.10)', () => {
  it('max_versions: the larger of key and mount, else 10', () => {
    assert.equal(effectiveMaxVersions(undefined, cfg()), 10);
    assert.equal(effectiveMaxVersions({ max_versions: 0 }, cfg()), 10);
    assert.equal(effectiveMaxVersions({ max_versions: 3 }, cfg()), 3);
    assert.equal(effectiveMaxVersions({ max_versions: 0 }, cfg({ max_versions: 5 })), 5);
    assert.equal(effectiveMaxVersions({ max_versions: 2 }, cfg({ max_versions: 5 })), 5, 'a lower key value has no effect');
    assert.equal(effectiveMaxVersions({ max_versions: 7 }, cfg({ max_versions: 5 })), 7);
  });
  it('delete_version_after: the smaller non-zero, disabled when the mount is negative', () => {
    assert.equal(effectiveDeleteAfter(undefined, cfg()), 0);
    assert.equal(effectiveDeleteAfter({ delete_version_after_s: 10 }, cfg()), 10);
    assert.equal(effectiveDeleteAfter({ delete_version_after_s: 0 }, cfg({ delete_version_after_s: 20 })), 20);
    assert.equal(effectiveDeleteAfter({ delete_version_after_s: 10 }, cfg({ delete_version_after_s: 20 })), 10);
    assert.equal(effectiveDeleteAfter({ delete_version_after_s: 30 }, cfg({ delete_version_after_s: 20 })), 20);
    assert.equal(effectiveDeleteAfter({ delete_version_after_s: 10 }, cfg({ delete_version_after_s: -1 })), 0);
  });
});

describe('checkCas (§2.6)', () => {
  const MISMATCH = 'check-and-set parameter did not match the current version';
  const REQUIRED = 'check-and-set parameter required for this call';
  const PARSE = 'error parsing check-and-set parameter';
  it('passes without cas when not required', () => {
    checkCas(undefined, cfg(), undefined);
    checkCas(keyWith(2), cfg(), undefined);
  });
  it('cas must equal current_version (0 for an unknown key)', () => {
    checkCas(undefined, cfg(), 0);
    throwsInput(() => checkCas(undefined, cfg(), 1), MISMATCH);
    const key = keyWith(3);
    checkCas(key, cfg(), 3);
    checkCas(key, cfg(), '3');
    throwsInput(() => checkCas(key, cfg(), 2), MISMATCH);
    throwsInput(() => checkCas(key, cfg(), 0), MISMATCH);
    throwsInput(() => checkCas(key, cfg(), -1), MISMATCH);
  });
  it('cas 0 works on a metadata-only key and fails on a soft-deleted key', () => {
    checkCas(newKeyMetadata(NOW), cfg(), 0);
    const key = keyWith(1);
    softDeleteCurrent(key, NOW);
    throwsInput(() => checkCas(key, cfg(), 0), MISMATCH);
    checkCas(key, cfg(), 1);
  });
  it('decodes weakly and rejects junk', () => {
    checkCas(undefined, cfg(), '0');
    checkCas(undefined, cfg(), '');
    checkCas(undefined, cfg(), null);
    checkCas(keyWith(1), cfg(), true);
    for (const bad of ['abc', '1.5', 1.5, {}, [1], ' 1']) throwsInput(() => checkCas(keyWith(1), cfg(), bad), PARSE);
  });
  it('is required by the mount or the key', () => {
    throwsInput(() => checkCas(undefined, cfg({ cas_required: true }), undefined), REQUIRED);
    throwsInput(() => checkCas(keyWith(1, cfg(), { cas_required: true }), cfg(), undefined), REQUIRED);
    checkCas(keyWith(1, cfg(), { cas_required: true }), cfg(), 1);
  });
});

describe('addVersion (§2.5, §2.10)', () => {
  it('numbers versions and stamps times', () => {
    const key = newKeyMetadata(NOW);
    assert.deepEqual(addVersion(key, cfg(), NOW), { version: 1, pruned: [] });
    assert.deepEqual(key.versions['1'], { created_time: formatTime(NOW), deletion_time: '', destroyed: false });
    assert.deepEqual(addVersion(key, cfg(), later(5)), { version: 2, pruned: [] });
    assert.equal(key.current_version, 2);
    assert.equal(key.oldest_version, 0);
    assert.equal(key.created_time, formatTime(NOW));
    assert.equal(key.updated_time, formatTime(later(5)));
  });
  it('fills an empty created_time', () => {
    const key = { ...newKeyMetadata(NOW), created_time: '' };
    addVersion(key, cfg(), later(1));
    assert.equal(key.created_time, formatTime(later(1)));
  });
  it('prunes with max_versions 2 across 5 writes', () => {
    const key = { ...newKeyMetadata(NOW), max_versions: 2 };
    const seen = [1, 2, 3, 4, 5].map((i) => {
      const r = addVersion(key, cfg(), later(i));
      return [r.version, r.pruned, key.oldest_version];
    });
    assert.deepEqual(seen, [
      [1, [], 0],
      [2, [], 1],
      [3, [1], 2],
      [4, [2], 3],
      [5, [3], 4],
    ]);
    assert.deepEqual(Object.keys(key.versions), ['4', '5']);
  });
  it('keeps 10 versions by default', () => {
    const key = keyWith(10);
    assert.equal(key.oldest_version, 1);
    assert.deepEqual(addVersion(key, cfg(), later(11)).pruned, [1]);
    assert.deepEqual(addVersion(key, cfg(), later(12)).pruned, [2]);
    assert.equal(Object.keys(key.versions).length, 10);
    assert.equal(key.oldest_version, 3);
  });
  it('a key max lower than the mount max has no effect; a higher one wins', () => {
    const low = keyWith(6, cfg({ max_versions: 5 }), { max_versions: 2 });
    assert.deepEqual(Object.keys(low.versions), ['2', '3', '4', '5', '6']);
    const high = keyWith(6, cfg({ max_versions: 2 }), { max_versions: 4 });
    assert.deepEqual(Object.keys(high.versions), ['3', '4', '5', '6']);
  });
  it('lowering max_versions prunes several versions at once', () => {
    const key = keyWith(6);
    key.max_versions = 2;
    assert.deepEqual(addVersion(key, cfg(), later(7)), { version: 7, pruned: [1, 2, 3, 4, 5] });
    assert.equal(key.oldest_version, 6);
    assert.deepEqual(Object.keys(key.versions), ['6', '7']);
  });
  it('pre-sets deletion_time from delete_version_after', () => {
    const key = newKeyMetadata(NOW);
    addVersion(key, cfg({ delete_version_after_s: 3600 }), NOW);
    assert.equal(key.versions['1']?.deletion_time, formatTime(later(3600)));
    key.delete_version_after_s = 60;
    addVersion(key, cfg({ delete_version_after_s: 3600 }), NOW);
    assert.equal(key.versions['2']?.deletion_time, formatTime(later(60)));
    addVersion(key, cfg({ delete_version_after_s: -1 }), NOW);
    assert.equal(key.versions['3']?.deletion_time, '');
  });
});

describe('versionState (§2.5)', () => {
  it('classifies versions', () => {
    const m = { created_time: formatTime(NOW), deletion_time: '', destroyed: false };
    assert.equal(versionState(m, NOW), 'live');
    assert.equal(versionState({ ...m, deletion_time: formatTime(later(10)) }, NOW), 'live', 'future deletion_time');
    assert.equal(versionState({ ...m, deletion_time: formatTime(NOW) }, NOW), 'live', 'not yet before now');
    assert.equal(versionState({ ...m, deletion_time: formatTime(later(-1)) }, NOW), 'deleted');
    assert.equal(versionState({ ...m, destroyed: true }, NOW), 'destroyed');
    assert.equal(versionState({ ...m, destroyed: true, deletion_time: formatTime(later(-1)) }, NOW), 'destroyed');
  });
});

describe('parseVersions / parseIntField (§2.7)', () => {
  it('accepts arrays, comma strings and single values', () => {
    assert.deepEqual(parseVersions([1, 2]), [1, 2]);
    assert.deepEqual(parseVersions(['1', '2']), [1, 2]);
    assert.deepEqual(parseVersions('1,2'), [1, 2]);
    assert.deepEqual(parseVersions('3'), [3]);
    assert.deepEqual(parseVersions(3), [3]);
    assert.deepEqual(parseVersions(''), []);
    assert.deepEqual(parseVersions(undefined), []);
    assert.deepEqual(parseVersions(null), []);
    assert.deepEqual(parseVersions([]), []);
  });
  it('rejects junk', () => {
    for (const bad of ['a,b', '1, 2', [1.5], [{}], [[1]], { a: 1 }, 1.5, '1.0']) {
      throwsInput(() => parseVersions(bad), /field "versions"/);
    }
  });
  it('parseIntField decodes weakly and checks bounds', () => {
    assert.equal(parseIntField('7', 'version'), 7);
    assert.equal(parseIntField(7, 'version'), 7);
    assert.equal(parseIntField('', 'version'), 0);
    throwsInput(() => parseIntField('x', 'version'), /field "version"/);
    throwsInput(() => parseIntField(-1, 'depth', 0), /field "depth"/);
  });
});

describe('delete / undelete / destroy (§2.5, §2.7)', () => {
  it('soft-deletes existing live versions only', () => {
    const key = keyWith(3);
    destroyVersions(key, [3]);
    assert.deepEqual(softDeleteVersions(key, [1, 2, 3, 99, 1], NOW), [1, 2]);
    assert.equal(key.versions['1']?.deletion_time, formatTime(NOW));
    assert.equal(key.versions['3']?.deletion_time, '');
    assert.deepEqual(softDeleteVersions(key, [1], later(5)), [], 'already deleted');
    assert.equal(key.versions['1']?.deletion_time, formatTime(NOW));
  });
  it('moves a future deletion_time to now', () => {
    const key = keyWith(1, cfg({ delete_version_after_s: 3600 }));
    assert.deepEqual(softDeleteVersions(key, [1], NOW), [1]);
    assert.equal(key.versions['1']?.deletion_time, formatTime(NOW));
  });
  it('DELETE data/<key> soft-deletes the current version once', () => {
    const key = keyWith(2);
    assert.equal(softDeleteCurrent(key, NOW), true);
    assert.equal(key.versions['1']?.deletion_time, '');
    assert.equal(softDeleteCurrent(key, later(1)), false);
    assert.equal(softDeleteCurrent(newKeyMetadata(NOW), NOW), false);
    const destroyed = keyWith(1);
    destroyVersions(destroyed, [1]);
    assert.equal(softDeleteCurrent(destroyed, NOW), false);
  });
  it('undeletes non-destroyed versions, re-arming delete_version_after', () => {
    const key = keyWith(3);
    softDeleteVersions(key, [1, 2, 3], NOW);
    destroyVersions(key, [3]);
    assert.deepEqual(undeleteVersions(key, [1, 3, 42], cfg(), later(1)), [1]);
    assert.equal(key.versions['1']?.deletion_time, '');
    assert.equal(versionState(key.versions['2'] as never, later(1)), 'deleted');
    assert.deepEqual(undeleteVersions(key, [2], cfg({ delete_version_after_s: 60 }), later(1)), [2]);
    assert.equal(key.versions['2']?.deletion_time, formatTime(later(61)));
    undeleteVersions(key, [2], cfg({ delete_version_after_s: -1 }), later(1));
    assert.equal(key.versions['2']?.deletion_time, '');
  });
  it('destroys known versions and reports them for data deletion', () => {
    const key = keyWith(3);
    assert.deepEqual(destroyVersions(key, [2, 99, 2]), [2]);
    assert.equal(key.versions['2']?.destroyed, true);
    assert.equal(key.versions['1']?.destroyed, false);
    assert.deepEqual(destroyVersions(key, [2]), [2], 'idempotent');
  });
  it('refuses empty version lists with the exact messages', () => {
    const key = keyWith(1);
    throwsInput(() => softDeleteVersions(key, [], NOW), 'No version number provided');
    throwsInput(() => undeleteVersions(key, [], cfg(), NOW), 'No version number provided');
    throwsInput(() => destroyVersions(key, []), 'no version number provided');
  });
});

describe('metadata writes (§2.8)', () => {
  it('applies only supplied fields', () => {
    const key = keyWith(1);
    const r = applyMetadataUpdate(key, { max_versions: 5, cas_required: 'true', delete_version_after: '1h' }, cfg(), NOW);
    assert.deepEqual(r, { warnings: [], applied: true });
    assert.equal(key.max_versions, 5);
    assert.equal(key.cas_required, true);
    assert.equal(key.delete_version_after_s, 3600);
    assert.equal(key.custom_metadata, null);
    applyMetadataUpdate(key, { delete_version_after: 0 }, cfg(), NOW);
    assert.equal(key.delete_version_after_s, 0);
    assert.equal(key.max_versions, 5);
  });
  it('is a no-op without recognised fields', () => {
    const key = keyWith(1);
    const before = structuredClone(key);
    assert.equal(hasMetadataFields({ other: 1 }), false);
    assert.equal(hasMetadataFields({ delete_version_after: null }), false);
    assert.equal(hasMetadataFields({ max_versions: null }), true);
    assert.deepEqual(applyMetadataUpdate(key, { other: 1 }, cfg(), NOW), { warnings: [], applied: false });
    assert.deepEqual(key, before);
  });
  it('warns when cas_required=false is overridden by the mount', () => {
    const key = keyWith(1);
    assert.deepEqual(applyMetadataUpdate(key, { cas_required: false }, cfg({ cas_required: true }), NOW).warnings, [
      '"cas_required" set to false, but is mandated by backend config. This value will be ignored.',
    ]);
    assert.equal(CAS_REQUIRED_WARNING, '"cas_required" set to false, but is mandated by backend config. This value will be ignored.');
    assert.deepEqual(applyMetadataUpdate(key, { cas_required: true }, cfg({ cas_required: true }), NOW).warnings, []);
    assert.deepEqual(applyMetadataPatch(key, { cas_required: false }, cfg({ cas_required: true }), NOW).warnings, [CAS_REQUIRED_WARNING]);
  });
  it('rejects bad scalar fields without mutating', () => {
    const key = keyWith(1);
    const before = structuredClone(key);
    throwsInput(() => applyMetadataUpdate(key, { max_versions: 3, delete_version_after: '-1s' }, cfg(), NOW), /field "delete_version_after".*negative/);
    throwsInput(() => applyMetadataUpdate(key, { cas_required: true, max_versions: 'many' }, cfg(), NOW), /field "max_versions"/);
    throwsInput(() => applyMetadataUpdate(key, { max_versions: -1 }, cfg(), NOW), /field "max_versions"/);
    throwsInput(() => applyMetadataUpdate(key, { cas_required: 'maybe' }, cfg(), NOW), /field "cas_required"/);
    throwsInput(() => applyMetadataUpdate(key, { max_versions: 2, custom_metadata: { '': 'x' } }, cfg(), NOW), /^custom_metadata validation failed: /);
    assert.deepEqual(key, before);
  });
  it('replaces custom_metadata, coercing values to strings', () => {
    const key = keyWith(1);
    applyMetadataUpdate(key, { custom_metadata: { a: 1, b: true, c: 'x' } }, cfg(), NOW);
    assert.deepEqual(key.custom_metadata, { a: '1', b: '1', c: 'x' });
    applyMetadataUpdate(key, { custom_metadata: { d: 'y' } }, cfg(), NOW);
    assert.deepEqual(key.custom_metadata, { d: 'y' });
    applyMetadataUpdate(key, { custom_metadata: {} }, cfg(), NOW);
    assert.equal(key.custom_metadata, null);
    applyMetadataUpdate(key, { custom_metadata: { d: 'y' } }, cfg(), NOW);
    applyMetadataUpdate(key, { custom_metadata: null }, cfg(), NOW);
    assert.equal(key.custom_metadata, null);
    throwsInput(() => applyMetadataUpdate(key, { custom_metadata: { a: { b: 1 } } }, cfg(), NOW), /^custom_metadata validation failed: value for key "a"/);
    throwsInput(() => applyMetadataUpdate(key, { custom_metadata: 'a=b' }, cfg(), NOW), /^custom_metadata validation failed: /);
  });
  it('enforces custom_metadata limits', () => {
    const many = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    assert.deepEqual(customMetadataErrors(many(64)), []);
    assert.deepEqual(customMetadataErrors(many(65)), ['custom_metadata validation failed: payload must contain at most 64 keys, provided 65']);
    assert.deepEqual(customMetadataErrors({ ['k'.repeat(128)]: 'v', v: 'x'.repeat(512), 'é ü': 'ok ✓' }), []);
    assert.deepEqual(customMetadataErrors({ ['k'.repeat(129)]: 'v' }), [
      `custom_metadata validation failed: length of key "${'k'.repeat(129)}" is 129 but must be 0 < len(key) <= 128`,
    ]);
    assert.deepEqual(customMetadataErrors({ '': 'v' }), ['custom_metadata validation failed: length of key "" is 0 but must be 0 < len(key) <= 128']);
    assert.deepEqual(customMetadataErrors({ a: 'x'.repeat(513) }), [
      'custom_metadata validation failed: length of value for key "a" is 513 but must be 0 < len(value) <= 512',
    ]);
    assert.deepEqual(customMetadataErrors({ a: '' }), [
      'custom_metadata validation failed: length of value for key "a" is 0 but must be 0 < len(value) <= 512',
    ]);
    assert.deepEqual(customMetadataErrors({ ['é'.repeat(65)]: 'v' }).length, 1, 'lengths count UTF-8 bytes');
    assert.deepEqual(customMetadataErrors({ 'a\tb': 'v\n' }), [
      'custom_metadata validation failed: key "a\\tb" (a\tb) contains unprintable characters',
      'custom_metadata validation failed: value for key "a\\tb" contains unprintable characters',
    ]);
    throwsInput(() => applyMetadataUpdate(keyWith(1), { custom_metadata: many(65) }, cfg(), NOW), /provided 65$/);
    assert.throws(
      () => applyMetadataUpdate(keyWith(1), { custom_metadata: { a: '', b: 'x'.repeat(600) } }, cfg(), NOW),
      (e: unknown) => e instanceof InputError && e.errors.length === 2 && e.errors.every((m) => m.startsWith('custom_metadata validation failed: ')),
    );
  });
  it('patch merges custom_metadata and keeps other fields', () => {
    const key = keyWith(1, cfg(), { max_versions: 4 });
    applyMetadataUpdate(key, { custom_metadata: { a: '1', b: '2' } }, cfg(), NOW);
    assert.deepEqual(applyMetadataPatch(key, { custom_metadata: { b: null, c: 3 } }, cfg(), NOW), { warnings: [], applied: true });
    assert.deepEqual(key.custom_metadata, { a: '1', c: '3' });
    assert.equal(key.max_versions, 4);
    applyMetadataPatch(key, { max_versions: 6 }, cfg(), NOW);
    assert.equal(key.max_versions, 6);
    assert.deepEqual(key.custom_metadata, { a: '1', c: '3' });
    applyMetadataPatch(key, { custom_metadata: { a: null, c: null } }, cfg(), NOW);
    assert.equal(key.custom_metadata, null);
    applyMetadataPatch(key, { custom_metadata: { z: 'z' } }, cfg(), NOW);
    applyMetadataPatch(key, { custom_metadata: null }, cfg(), NOW);
    assert.equal(key.custom_metadata, null);
  });
  it('patch validates the merged custom_metadata without mutating', () => {
    const key = keyWith(1);
    const full = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v']));
    applyMetadataUpdate(key, { custom_metadata: full }, cfg(), NOW);
    const before = structuredClone(key);
    throwsInput(() => applyMetadataPatch(key, { max_versions: 1, custom_metadata: { extra: 'x' } }, cfg(), NOW), /provided 65$/);
    throwsInput(() => applyMetadataPatch(key, { custom_metadata: { k0: '' } }, cfg(), NOW), /length of value for key "k0"/);
    assert.deepEqual(key, before);
    applyMetadataPatch(key, { custom_metadata: { k0: null, extra: 'x' } }, cfg(), NOW);
    assert.equal(Object.keys(key.custom_metadata ?? {}).length, 64);
  });
});

describe('config (§2.4)', () => {
  it('applies fields and normalises negative delete_version_after to disabled', () => {
    assert.deepEqual(applyConfigUpdate(cfg(), {}), { config: cfg(), applied: false });
    const { config, applied } = applyConfigUpdate(cfg(), { max_versions: '3', cas_required: true, delete_version_after: '-5s' });
    assert.equal(applied, true);
    assert.deepEqual(config, { max_versions: 3, cas_required: true, delete_version_after_s: -1 });
    assert.deepEqual(renderConfig(config), { max_versions: 3, cas_required: true, delete_version_after: '-1s' });
    assert.equal(applyConfigUpdate(config, { delete_version_after: '0s' }).config.delete_version_after_s, 0);
    assert.equal(applyConfigUpdate(config, { delete_version_after: '9480h' }).config.delete_version_after_s, 34128000);
    throwsInput(() => applyConfigUpdate(config, { max_versions: 'x' }), /field "max_versions"/);
  });
  it('renders the default config', () => {
    assert.deepEqual(renderConfig(DEFAULT_KV_CONFIG), { max_versions: 0, cas_required: false, delete_version_after: '0s' });
  });
});

describe('rendering (§2.5, §2.8)', () => {
  it('renders key metadata with key-level settings and a versions map', () => {
    const key = keyWith(2, cfg({ delete_version_after_s: 60 }));
    applyMetadataUpdate(key, { delete_version_after: 5400, custom_metadata: { owner: 'ops' } }, cfg(), NOW);
    destroyVersions(key, [1]);
    const out = renderMetadata(key);
    assert.deepEqual(out, {
      cas_required: false,
      created_time: formatTime(NOW),
      current_version: 2,
      custom_metadata: { owner: 'ops' },
      delete_version_after: '1h30m0s',
      max_versions: 0,
      oldest_version: 0,
      updated_time: formatTime(later(1)),
      versions: {
        '1': { created_time: formatTime(NOW), deletion_time: formatTime(later(60)), destroyed: true },
        '2': { created_time: formatTime(later(1)), deletion_time: formatTime(later(61)), destroyed: false },
      },
    });
    (out.versions as Record<string, { destroyed: boolean }>)['2']!.destroyed = true;
    assert.equal(key.versions['2']?.destroyed, false, 'render returns copies');
    assert.equal(renderMetadata(newKeyMetadata(NOW)).delete_version_after, '0s');
  });
  it('renders version metadata', () => {
    const key = keyWith(1);
    assert.deepEqual(renderVersionMeta(key, 1), {
      created_time: formatTime(NOW),
      custom_metadata: null,
      deletion_time: '',
      destroyed: false,
      version: 1,
    });
    assert.equal(renderVersionMeta(key, 2), undefined);
  });
});

describe('subkeys (§2.9)', () => {
  const data = { a: 1, b: { c: 2, d: { e: 3 } }, f: {}, g: [1, { h: 2 }], i: null };
  it('replaces leaves with null', () => {
    assert.deepEqual(subkeys(data, 0), { a: null, b: { c: null, d: { e: null } }, f: null, g: null, i: null });
  });
  it('cuts at depth', () => {
    assert.deepEqual(subkeys(data, 1), { a: null, b: null, f: null, g: null, i: null });
    assert.deepEqual(subkeys(data, 2), { a: null, b: { c: null, d: null }, f: null, g: null, i: null });
    assert.deepEqual(subkeys(data, 3), subkeys(data, 0));
  });
  it('handles non-objects and bad depth', () => {
    assert.equal(subkeys(null, 0), null);
    assert.deepEqual(subkeys({}, 0), {});
    throwsInput(() => subkeys(data, -1), /depth/);
    throwsInput(() => subkeys(data, 1.5), /depth/);
  });
});

describe('mergePatch (RFC 7386)', () => {
  it('passes the RFC 7386 appendix A cases', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, want] of cases) assert.deepEqual(mergePatch(target, patch), want);
  });
  it('does not mutate its inputs and is safe for __proto__ keys', () => {
    const target = { a: { b: 1 }, keep: [1] };
    const patch = { a: { c: 2 } };
    const out = mergePatch(target, patch) as { a: Record<string, number>; keep: number[] };
    assert.deepEqual(out, { a: { b: 1, c: 2 }, keep: [1] });
    assert.deepEqual(target, { a: { b: 1 }, keep: [1] });
    assert.deepEqual(patch, { a: { c: 2 } });
    out.keep.push(2);
    assert.deepEqual(target.keep, [1]);
    const evil = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(evil), Object.prototype);
    assert.deepEqual(Object.keys(evil), ['__proto__']);
  });
});

describe('InputError', () => {
  it('is an Error carrying every message', () => {
    const e = new InputError(['one', 'two']);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'InputError');
    assert.equal(e.message, 'one; two');
    assert.deepEqual(e.errors, ['one', 'two']);
    assert.deepEqual(new InputError('x').errors, ['x']);
  });
});
