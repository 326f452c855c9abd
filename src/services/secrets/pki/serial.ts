/**
 * Certificate serial numbers in the reference's forms (reference/secrets-engines.md §7
 * "Serial numbers"): on the wire lowercase hex pairs joined by `:`, in storage keys joined
 * by `-` (the reference's `certs/<serial>` keys), and either form accepted on input.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { InputError } from '../../../kernel/util/duration.js';

/**
 * A new random serial: 20 bytes (RFC 5280 §4.1.2.2's maximum) with the top bit clear, so
 * the DER INTEGER stays positive and 20 bytes long; as plain lowercase hex (40 digits).
 */
export function newSerialHex(): string {
  const b = randomBytes(20);
  b[0] = (b[0] & 0x7f) | 0x01; // positive, and never a leading zero byte DER would strip
  return b.toString('hex');
}

/** `0a1b…` (any case, any even length) → `0a:1b:…`. */
export function colonSerial(hex: string): string {
  const h = hex.toLowerCase().length % 2 ? '0' + hex.toLowerCase() : hex.toLowerCase();
  return h.match(/../g)?.join(':') ?? '';
}

/**
 * A serial as a client sends it (`39:dd:2e…`, `39-dd-2e…`, any case) → the storage form
 * `39-dd-2e…`. Errors (400 naming `field`): anything but hex pairs, or more than 40 bytes.
 */
export function serialKey(input: string, field = 'serial_number'): string {
  const s = input.trim().toLowerCase();
  if (!/^[0-9a-f]{2}([:-][0-9a-f]{2}){0,39}$/.test(s))
    throw new InputError(`${field}: not a certificate serial number (hex pairs joined by ":" or "-"): ${JSON.stringify(input.slice(0, 80))}`);
  return s.replaceAll(':', '-');
}

/** The storage form `39-dd-…` → the wire form `39:dd:…`. */
export const wireSerial = (key: string): string => key.replaceAll('-', ':');
