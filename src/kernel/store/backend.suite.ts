/**
 * Conformance suite for {@link Backend} implementations (DESIGN.md "State": "two
 * implementations behind one interface and one shared test suite"). Test-only: import it
 * from an implementation's `*.test.ts` and call {@link runBackendSuite} at top level.
 *
 * What it pins down beyond the interface's doc comments (an implementation must agree
 * with SQLite on all of it):
 * - keys are non-empty, well-formed Unicode strings without NUL and without a leading or
 *   trailing `/`; anything else rejects with an error (PostgreSQL TEXT cannot hold NUL);
 * - `list` orders by UTF-8 bytes (= code point order; PostgreSQL needs `COLLATE "C"`);
 * - the bytes stored are the bytes at the time of the call (later mutation of the
 *   caller's buffer changes nothing), and mutating a returned value changes nothing;
 * - a batch containing an invalid op rejects and leaves nothing behind.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Backend, BackendOp } from './backend.js';

/** What the suite's factory returns: a fresh, empty backend per test. */
export interface BackendFixture {
  /** A new, empty, open backend. */
  readonly backend: Backend;
  /**
   * Opens the same storage again (a new Backend instance). The suite calls it only
   * after closing the previous instance. Omit for storage that does not outlive its
   * instance; the durability tests then check through the live instance instead.
   */
  readonly reopen?: () => Promise<Backend>;
  /**
   * Releases the storage (deletes files, drops schemas). Runs after the suite has
   * closed every backend the fixture gave it (close errors are ignored).
   */
  readonly cleanup: () => Promise<void>;
}

/** A test's view of one fixture: the current backend, and reopen that closes it first. */
interface Harness {
  backend: Backend;
  readonly canReopen: boolean;
  /** Closes the current backend and returns a fresh instance on the same storage (or the same one). */
  reopen(): Promise<Backend>;
}

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

function assertBytes(actual: Uint8Array | undefined, expected: Uint8Array, what = 'value'): void {
  assert.ok(actual instanceof Uint8Array, `${what}: expected a Uint8Array, got ${String(actual)}`);
  assert.equal(Buffer.from(actual).toString('hex'), Buffer.from(expected).toString('hex'), what);
}

/**
 * Registers the conformance tests under `describe(name)`.
 *
 * @param name shown in the test report, e.g. `"SqliteBackend"`.
 * @param makeBackend called once per test; must return a new, empty backend.
 */
export function runBackendSuite(name: string, makeBackend: () => Promise<BackendFixture>): void {
  async function withBackend(fn: (h: Harness) => Promise<void>): Promise<void> {
    const fixture = await makeBackend();
    const opened: Backend[] = [fixture.backend];
    const harness: Harness = {
      backend: fixture.backend,
      canReopen: fixture.reopen !== undefined,
      async reopen() {
        if (!fixture.reopen) return harness.backend;
        await harness.backend.close().catch(() => undefined);
        harness.backend = await fixture.reopen();
        opened.push(harness.backend);
        return harness.backend;
      },
    };
    try {
      await fn(harness);
    } finally {
      for (const b of opened) await b.close().catch(() => undefined);
      await fixture.cleanup();
    }
  }

  describe(`Backend conformance: ${name}`, () => {
    it('get of a missing key resolves undefined', () =>
      withBackend(async ({ backend }) => {
        assert.equal(await backend.get('missing'), undefined);
        assert.equal(await backend.get('no/such/key'), undefined);
      }));

    it('put/get round-trips arbitrary bytes (NUL, invalid UTF-8, empty, large, views)', () =>
      withBackend(async ({ backend }) => {
        const all = new Uint8Array(256).map((_, i) => i);
        const cases: Array<[string, Uint8Array]> = [
          ['bin/all-bytes', all],
          ['bin/nul', new Uint8Array([0, 0, 0x41, 0])],
          ['bin/invalid-utf8', new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80])],
          ['bin/empty', new Uint8Array(0)],
          ['bin/large', new Uint8Array(randomBytes(1 << 20))],
        ];
        for (const [k, v] of cases) await backend.put(k, v);
        for (const [k, v] of cases) assertBytes(await backend.get(k), v, k);
        // A view into a larger buffer stores only the view's bytes.
        const big = new Uint8Array([9, 9, 1, 2, 3, 9, 9]);
        await backend.put('bin/view', big.subarray(2, 5));
        assertBytes(await backend.get('bin/view'), new Uint8Array([1, 2, 3]));
      }));

    it('stores the bytes as they were at the call; returned values are not aliases', () =>
      withBackend(async ({ backend }) => {
        const v = bytes('original');
        const p = backend.put('k', v);
        v.fill(0x58); // the caller reuses its buffer before the write is acknowledged
        assertBytes(await backend.get('k'), bytes('original'), 'before ack');
        await p;
        assertBytes(await backend.get('k'), bytes('original'), 'after ack');
        const got = await backend.get('k');
        got?.fill(0x59);
        assertBytes(await backend.get('k'), bytes('original'), 'after mutating a result');
      }));

    it('put overwrites (longer and shorter values)', () =>
      withBackend(async ({ backend }) => {
        await backend.put('k', bytes('first'));
        await backend.put('k', bytes('a much longer second value'));
        assertBytes(await backend.get('k'), bytes('a much longer second value'));
        await backend.put('k', bytes('3'));
        assertBytes(await backend.get('k'), bytes('3'));
        assert.deepEqual(await backend.list(''), ['k']);
      }));

    it('delete removes the key and is idempotent', () =>
      withBackend(async ({ backend }) => {
        await backend.put('a/b', bytes('x'));
        await backend.put('a/c', bytes('y'));
        await backend.delete('a/b');
        assert.equal(await backend.get('a/b'), undefined);
        assertBytes(await backend.get('a/c'), bytes('y'));
        await backend.delete('a/b');
        await backend.delete('never/existed');
        assert.deepEqual(await backend.list('a/'), ['c']);
      }));

    it('list: immediate children of the root and of nested folders, byte-sorted', () =>
      withBackend(async ({ backend }) => {
        assert.deepEqual(await backend.list(''), []);
        const keys = ['b', 'a/x', 'a/c/d', 'a/c/e', 'a/b', 'c/d/e/f', 'B', 'a/c/z/deep/er'];
        for (const k of keys) await backend.put(k, bytes(k));
        assert.deepEqual(await backend.list(''), ['B', 'a/', 'b', 'c/']);
        assert.deepEqual(await backend.list('a/'), ['b', 'c/', 'x']);
        assert.deepEqual(await backend.list('a/c/'), ['d', 'e', 'z/']);
        assert.deepEqual(await backend.list('a/c/z/'), ['deep/']);
        assert.deepEqual(await backend.list('c/'), ['d/']);
        assert.deepEqual(await backend.list('c/d/e/'), ['f']);
        assert.deepEqual(await backend.list('nothing/'), []);
        assert.deepEqual(await backend.list('a/x/'), [], 'a leaf is not a folder');
      }));

    it('list: a leaf and a folder with the same name both appear', () =>
      withBackend(async ({ backend }) => {
        await backend.put('a/b', bytes('1'));
        await backend.put('a', bytes('2'));
        await backend.put('a/b/c', bytes('3'));
        assert.deepEqual(await backend.list(''), ['a', 'a/']);
        assert.deepEqual(await backend.list('a/'), ['b', 'b/']);
        assertBytes(await backend.get('a'), bytes('2'));
        assertBytes(await backend.get('a/b'), bytes('1'));
      }));

    it('list: siblings sorting around "/" ("a-b" < "a/" < "a0") are all found', () =>
      withBackend(async ({ backend }) => {
        for (const k of ['a0', 'a/c', 'a-b', 'a/d/e', 'a.', 'a0/x', 'a']) await backend.put(k, bytes(k));
        assert.deepEqual(await backend.list(''), ['a', 'a-b', 'a.', 'a/', 'a0', 'a0/']);
        assert.deepEqual(await backend.list('a/'), ['c', 'd/']);
        assert.deepEqual(await backend.list('a0/'), ['x']);
      }));

    it('list: unicode keys sort by UTF-8 bytes, not UTF-16 units', () =>
      withBackend(async ({ backend }) => {
        // Byte order: z (7A) < é (C3) < 日 (E6) < U+FFFD (EF) < 😀 (F0). UTF-16 order would
        // put 😀 (D83D) before U+FFFD.
        const names = ['😀', '\uFFFD', '日本', 'é', 'z', 'ü/ö', '😀/🎉'];
        for (const k of names) await backend.put(`u/${k}`, bytes(k));
        assert.deepEqual(await backend.list('u/'), ['z', 'é', 'ü/', '日本', '\uFFFD', '😀', '😀/']);
        assert.deepEqual(await backend.list('u/😀/'), ['🎉']);
        assertBytes(await backend.get('u/日本'), bytes('日本'));
      }));

    it('list: a folder disappears with its last key', () =>
      withBackend(async ({ backend }) => {
        await backend.put('f/x/1', bytes('1'));
        await backend.put('f/x/2', bytes('2'));
        await backend.put('f/y', bytes('3'));
        await backend.delete('f/x/1');
        assert.deepEqual(await backend.list('f/'), ['x/', 'y']);
        await backend.delete('f/x/2');
        assert.deepEqual(await backend.list('f/'), ['y']);
        await backend.delete('f/y');
        assert.deepEqual(await backend.list(''), []);
      }));

    it('rejects malformed keys and prefixes', () =>
      withBackend(async ({ backend }) => {
        const badKeys: unknown[] = ['', '/a', 'a/', 'a\0b', 'lone\uD800', 42, undefined, null];
        for (const k of badKeys) {
          const key = k as string;
          await assert.rejects(backend.put(key, bytes('v')), Error, `put ${JSON.stringify(k)}`);
          await assert.rejects(backend.get(key), Error, `get ${JSON.stringify(k)}`);
          await assert.rejects(backend.delete(key), Error, `delete ${JSON.stringify(k)}`);
        }
        await assert.rejects(backend.put('k', 'not bytes' as unknown as Uint8Array));
        for (const p of ['a', '/', '/a/', 'a\0/', 7]) {
          await assert.rejects(backend.list(p as string), Error, `list ${JSON.stringify(p)}`);
        }
        assert.deepEqual(await backend.list(''), []);
      }));

    it('batch applies puts and deletes together; later ops on a key win', () =>
      withBackend(async ({ backend }) => {
        await backend.put('old', bytes('gone soon'));
        await backend.batch([
          { key: 'b/1', value: bytes('one') },
          { key: 'b/2', value: bytes('two') },
          { key: 'old' },
          { key: 'b/3', value: bytes('temp') },
          { key: 'b/3' },
          { key: 'b/1', value: bytes('uno') },
        ]);
        assertBytes(await backend.get('b/1'), bytes('uno'));
        assertBytes(await backend.get('b/2'), bytes('two'));
        assert.equal(await backend.get('b/3'), undefined);
        assert.equal(await backend.get('old'), undefined);
        assert.deepEqual(await backend.list(''), ['b/']);
        await backend.batch([]);
      }));

    it('batch with an invalid op rejects and leaves nothing', () =>
      withBackend(async (h) => {
        await h.backend.put('keep', bytes('before'));
        const bad: BackendOp[] = [
          { key: 'keep', value: bytes('after') },
          { key: 'x/new', value: bytes('new') },
          { key: 42 as unknown as string, value: bytes('bad key') },
          { key: 'x/other', value: bytes('other') },
        ];
        await assert.rejects(h.backend.batch(bad));
        const badValue: BackendOp[] = [
          { key: 'x/new', value: bytes('new') },
          { key: 'x/v', value: 'not bytes' as unknown as Uint8Array },
        ];
        await assert.rejects(h.backend.batch(badValue));
        // A concurrent valid write is unaffected by a sibling's failure.
        await Promise.all([h.backend.put('x/fine', bytes('ok')), assert.rejects(h.backend.batch(bad))]);
        const check = async (b: Backend): Promise<void> => {
          assertBytes(await b.get('keep'), bytes('before'));
          assert.equal(await b.get('x/new'), undefined);
          assert.equal(await b.get('x/other'), undefined);
          assert.deepEqual(await b.list('x/'), ['fine']);
        };
        await check(h.backend);
        if (h.canReopen) await check(await h.reopen());
      }));

    it('reads see writes before their promise resolves (get and list)', () =>
      withBackend(async ({ backend }) => {
        await backend.put('d/1', bytes('file'));
        await backend.put('d/2', bytes('file'));
        const pending: Promise<void>[] = [];
        pending.push(backend.put('k', bytes('v1')));
        assertBytes(await backend.get('k'), bytes('v1'));
        pending.push(backend.put('k', bytes('v2')));
        assertBytes(await backend.get('k'), bytes('v2'), 'the later put wins');
        pending.push(backend.delete('k'));
        assert.equal(await backend.get('k'), undefined, 'the later delete wins');
        pending.push(backend.put('k', bytes('v3')));
        pending.push(backend.delete('d/1'), backend.delete('d/2'));
        assert.deepEqual(await backend.list(''), ['k'], 'a folder emptied by queued deletes is gone');
        pending.push(
          backend.batch([
            { key: 'd/3/x', value: bytes('new') },
            { key: 'e', value: bytes('e') },
          ]),
        );
        assert.deepEqual(await backend.list(''), ['d/', 'e', 'k']);
        assert.deepEqual(await backend.list('d/'), ['3/']);
        // A read-modify-write chain: each step reads the previous, unacknowledged step.
        for (let i = 0; i < 5; i++) {
          const n = Number(Buffer.from((await backend.get('counter')) ?? bytes('0')).toString());
          pending.push(backend.put('counter', bytes(String(n + 1))));
        }
        assertBytes(await backend.get('counter'), bytes('5'));
        await Promise.all(pending);
        assertBytes(await backend.get('k'), bytes('v3'));
        assertBytes(await backend.get('counter'), bytes('5'));
        assert.deepEqual(await backend.list(''), ['d/', 'e', 'k', 'counter'].sort());
      }));

    it('entries (when the backend has it): every key under a prefix at any depth, byte-sorted, queued writes included', (t) =>
      withBackend(async ({ backend }) => {
        if (!backend.entries) return t.skip('this backend has no bulk read');
        await backend.batch([
          { key: 'a/x', value: bytes('1') },
          { key: 'a/b/c', value: bytes('2') },
          { key: 'a-b', value: bytes('outside') },
          { key: 'a0', value: bytes('outside') },
          { key: 'a/é', value: bytes('3') },
        ]);
        const pending = [backend.put('a/new', bytes('4')), backend.delete('a/x')];
        const text = (e: Array<[string, Uint8Array]>) => e.map(([k, v]) => [k, Buffer.from(v).toString()]);
        assert.deepEqual(text(await backend.entries('a/')), [
          ['a/b/c', '2'],
          ['a/new', '4'],
          ['a/é', '3'],
        ]);
        await Promise.all(pending);
        assert.deepEqual(
          (await backend.entries('')).map(([k]) => k),
          ['a-b', 'a/b/c', 'a/new', 'a/é', 'a0'],
        );
        assert.deepEqual(await backend.entries('none/'), []);
      }));

    it('200 concurrent puts are all durable (checked after reopen when supported)', () =>
      withBackend(async (h) => {
        const value = (i: number): Uint8Array => bytes(`value-${i}-`.repeat((i % 7) + 1));
        await Promise.all(Array.from({ length: 200 }, (_, i) => h.backend.put(`c/${String(i).padStart(3, '0')}`, value(i))));
        const b = await h.reopen();
        for (let i = 0; i < 200; i++) assertBytes(await b.get(`c/${String(i).padStart(3, '0')}`), value(i), `c/${i}`);
        const listed = await b.list('c/');
        assert.equal(listed.length, 200);
        assert.equal(listed[0], '000');
        assert.equal(listed[199], '199');
      }));

    it('close flushes queued writes; every later call rejects', () =>
      withBackend(async (h) => {
        const b = h.backend;
        const queued = b.put('late', bytes('queued before close'));
        await b.close();
        await queued; // acknowledged by close's flush
        await assert.rejects(b.get('late'), Error);
        await assert.rejects(b.put('x', bytes('x')), Error);
        await assert.rejects(b.delete('x'), Error);
        await assert.rejects(b.list(''), Error);
        await assert.rejects(b.batch([{ key: 'x', value: bytes('x') }]), Error);
        await assert.rejects(b.close(), Error);
        if (h.canReopen) {
          const again = await h.reopen();
          assertBytes(await again.get('late'), bytes('queued before close'));
        }
      }));
  });
}
