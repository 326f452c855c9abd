/**
 * Address checks of static hosts and targets against the reference's `util.ParseAddress`
 * cases: IPs and DNS names pass (trimmed), ports, wrong lengths and other text fail with
 * the reference's texts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressProblemText, parseAddress } from './address.js';

const PORT = 'Address does not support a port.';
const text = (raw: string) => {
  const r = parseAddress(raw);
  return r.problem ? addressProblemText(r.problem, PORT) : r.address;
};

describe('gateway addresses', () => {
  it('takes IPv4, IPv6 (bare or bracketed) and DNS names, trimmed', () => {
    for (const [raw, want] of [
      ['10.0.0.1', '10.0.0.1'],
      ['  10.0.0.1\t', '10.0.0.1'],
      ['::1', '::1'],
      ['2001:db8::1', '2001:db8::1'],
      ['[2001:db8::1]', '[2001:db8::1]'],
      ['db.internal.example', 'db.internal.example'],
      ['db.example.', 'db.example.'],
      ['my_host-1', 'my_host-1'],
    ]) {
      assert.equal(text(raw), want, raw);
    }
  });

  it('refuses ports, lengths outside 3–255 and what is neither an IP nor a DNS name', () => {
    for (const [raw, want] of [
      ['10.0.0.1:22', PORT],
      ['db.example:5432', PORT],
      ['[::1]:22', PORT],
      ['ab', 'Address length must be between 3 and 255 characters.'],
      ['x'.repeat(256), 'Address length must be between 3 and 255 characters.'],
      ['db:', 'Error parsing address: missing port after ":".'],
      ['1:2:3:zz', 'Error parsing address: too many colons in address.'],
      ['[10.0.0.1]', 'Error parsing address: address "[10.0.0.1]" is not a bracketed IPv6 address.'],
      ['-bad.example', 'Error parsing address: "-bad.example" is neither an IP address nor a DNS name.'],
      ['a b c', 'Error parsing address: "a b c" is neither an IP address nor a DNS name.'],
      ['http://x.example', PORT], // as Go's SplitHostPort reads it: host "http", port "//x.example"
    ]) {
      assert.equal(text(raw), want, raw);
    }
  });
});
