/**
 * A minimal DER (X.690) reader: just enough to take apart the parts of an X.509
 * certificate that node:crypto's `X509Certificate` does not expose (names by attribute,
 * subject alternative names by kind, key identifiers, any extension's value). It never
 * allocates copies: values are views into the certificate's bytes.
 *
 * @module
 */

/** One DER element: its tag byte and its contents. */
export interface Der {
  readonly tag: number;
  readonly value: Buffer;
}

/** Thrown for bytes that are not DER as this reader accepts it. */
export class DerError extends Error {}

/**
 * The elements in `buf`, one after the other (the contents of a SEQUENCE or SET).
 * Only single-byte tags and definite lengths of up to 4 bytes (DER never needs more).
 * @throws {DerError} on truncated or malformed input.
 */
export function derChildren(buf: Buffer): Der[] {
  const out: Der[] = [];
  let i = 0;
  while (i < buf.length) {
    const tag = buf[i]!;
    if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not supported');
    let len = buf[i + 1];
    if (len === undefined) throw new DerError('truncated element');
    i += 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || i + n > buf.length) throw new DerError('bad length');
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + buf[i + k]!;
      i += n;
    }
    if (i + len > buf.length) throw new DerError('truncated element');
    out.push({ tag, value: buf.subarray(i, i + len) });
    i += len;
  }
  return out;
}

/** The one element that `buf` holds. @throws {DerError} when it holds none or more. */
export function derOne(buf: Buffer): Der {
  const all = derChildren(buf);
  if (all.length !== 1) throw new DerError('expected exactly one element');
  return all[0]!;
}

/** Dotted form of an OBJECT IDENTIFIER's contents (`2.5.4.3`). */
export function derOid(value: Buffer): string {
  const first = value[0] ?? 0;
  const parts = [first < 80 ? Math.floor(first / 40) : 2, first < 80 ? first % 40 : first - 80];
  let n = 0;
  for (let i = 1; i < value.length; i++) {
    n = n * 128 + (value[i]! & 0x7f);
    if (!(value[i]! & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

/** Tags of the ASN.1 string types a certificate's names and extensions use. */
const STRING_TAGS = new Map<number, BufferEncoding>([
  [0x0c, 'utf8'], // UTF8String
  [0x12, 'latin1'], // NumericString
  [0x13, 'latin1'], // PrintableString
  [0x14, 'latin1'], // T61String (read as Latin-1, as most decoders do)
  [0x16, 'latin1'], // IA5String
  [0x1a, 'latin1'], // VisibleString
]);

/** The text of a DER string element; undefined for any other type (BMPString included). */
export function derString(d: Der): string | undefined {
  const enc = STRING_TAGS.get(d.tag);
  return enc === undefined ? undefined : d.value.toString(enc);
}
