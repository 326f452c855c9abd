/**
 * A Bloom filter of storage keys: "certainly absent" or "maybe present", for
 * {@link SqliteBackend} to answer a read of a key it never stored without a SQLite read
 * (issue 15: the existence check of every new KV v2 key was a B-tree miss on a read
 * connection whose page cache each commit of the writer thread had just reset, ~12 % of
 * the main thread at full write load).
 *
 * Keys are only ever added: a deleted key stays "maybe present" (a false positive costs
 * the SQLite read it would have cost anyway). At 16 bits and 7 probes per key the
 * false-positive rate is under 0.1 % until {@link KeyFilter.full}, after which the owner
 * rebuilds a larger filter from its stored keys.
 *
 * @module
 */

/** Bits per key of capacity (a power of two): with {@link PROBES} probes, ~0.07 % false positives at capacity. */
const BITS_PER_KEY = 16;
/** Probes (bits set / tested) per key. */
const PROBES = 7;
/** The smallest capacity (keys): 64 Ki keys, a 128 KiB bit array. */
const MIN_CAPACITY = 1 << 16;

/** Two independent 32-bit FNV-1a hashes of the key's UTF-16 code units (different offset bases). */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // An odd step, so the probes of a key visit distinct bits of the power-of-two array.
  return [a >>> 0, (b | 1) >>> 0];
}

/** A Bloom filter over strings (see the module comment). */
export class KeyFilter {
  /** Keys the filter is sized for; past it, {@link full} is true. */
  readonly capacity: number;
  private readonly bits: Uint32Array;
  /** Bit count − 1 (the bit count is a power of two). */
  private readonly mask: number;
  private added = 0;

  /** @param expected keys the filter must hold with a low false-positive rate (rounded up to a power of two, at least 65,536). */
  constructor(expected: number) {
    let capacity = MIN_CAPACITY;
    while (capacity < expected) capacity *= 2;
    this.capacity = capacity;
    const bitCount = capacity * BITS_PER_KEY;
    this.mask = bitCount - 1;
    this.bits = new Uint32Array(bitCount >>> 5);
  }

  /** Adds `key` ("maybe present" from now on). */
  add(key: string): void {
    const [a, b] = hashes(key);
    for (let i = 0, h = a; i < PROBES; i++, h = (h + b) | 0) {
      const bit = h & this.mask;
      this.bits[bit >>> 5] |= 1 << (bit & 31);
    }
    this.added++;
  }

  /** False when `key` was certainly never added; true when it may have been. */
  mightHave(key: string): boolean {
    const [a, b] = hashes(key);
    for (let i = 0, h = a; i < PROBES; i++, h = (h + b) | 0) {
      const bit = h & this.mask;
      if ((this.bits[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** More keys were added than the filter is sized for: the owner should build a larger one. */
  get full(): boolean {
    return this.added > this.capacity;
  }
}
