/**
 * One DNS message in, one out (issue 16 scope 7): decodes the query with `dns-packet`,
 * answers names under the domain from the catalog (answer.ts), forwards the others to the
 * recursors (recurse.ts), and encodes the reply with the reference's header bits (AA, RD
 * copied, RA when recursors are set) and its size rules.
 *
 * Untrusted input: anything that is not a decodable query gets FORMERR (with the id,
 * when the 12-byte header is there) or nothing; a reply sent over UDP is cut to 512
 * bytes, or to the client's EDNS size, dropping the additional then the answer records
 * and setting TC, so the client asks again over TCP, where it goes whole.
 *
 * @module
 */
import {
  AUTHORITATIVE_ANSWER,
  decode,
  encode,
  encodingLength,
  RECURSION_AVAILABLE,
  RECURSION_DESIRED,
  TRUNCATED_RESPONSE,
  type Answer,
  type DecodedPacket,
  type OptAnswer,
  type Packet,
} from 'dns-packet';
import type { Logger } from '../../../kernel/log/logger.js';
import { answerQuestion, RCODE, type AnswerContext } from './answer.js';
import { recurse } from './recurse.js';

/** UDP reply size without EDNS (RFC 1035 §4.2.1). */
const UDP_DEFAULT_SIZE = 512;
/** Largest UDP reply size honoured from a client's EDNS record, in bytes. */
const UDP_MAX_SIZE = 4096;
/** Size of a DNS message header, in bytes. */
const HEADER = 12;
/** The opcode of a standard query. */
const OPCODE_QUERY = 0;

/** What {@link handleMessage} needs besides the message. */
export interface HandleContext extends AnswerContext {
  readonly log: Logger;
  /** Forwards a query outside the domain; undefined: every recursor failed. Default: {@link recurse} over the configured recursors. */
  readonly recurse?: (query: Buffer) => Promise<Buffer | undefined>;
}

/**
 * The reply to DNS message `msg` received over `transport`; undefined when nothing should
 * be sent (shorter than a header, or not a query). Never rejects.
 */
export async function handleMessage(ctx: HandleContext, msg: Buffer, transport: 'udp' | 'tcp'): Promise<Buffer | undefined> {
  if (msg.length < HEADER || (msg[2]! & 0x80) !== 0) return undefined;
  // One question, and no more records than the bytes could hold (11 bytes at least each):
  // checked before decoding, which sizes its arrays from these counts.
  const records = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  if (msg.readUInt16BE(4) !== 1 || records > (msg.length - HEADER) / 11) return errorReply(msg, RCODE.FORMERR);
  let query: DecodedPacket;
  try {
    query = decode(msg);
  } catch {
    return errorReply(msg, RCODE.FORMERR);
  }
  const opcode = (msg[2]! >> 3) & 0xf;
  if (opcode !== OPCODE_QUERY) return errorReply(msg, RCODE.NOTIMP);
  const q = query.questions![0]!;
  const edns = (query.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  const maxSize = transport === 'tcp' ? 65_535 : Math.min(Math.max(edns?.udpPayloadSize ?? UDP_DEFAULT_SIZE, UDP_DEFAULT_SIZE), UDP_MAX_SIZE);
  const recursion = ctx.dns.recursors.length > 0;
  const flags = AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & RECURSION_DESIRED) | (recursion ? RECURSION_AVAILABLE : 0);
  const base = { type: 'response' as const, id: query.id, questions: [q] };
  let reply;
  try {
    reply = answerQuestion(ctx, q.name, q.type);
  } catch (err) {
    ctx.log.warn({ err, name: q.name }, 'DNS query failed');
    return encodeReply({ ...base, flags: flags | RCODE.SERVFAIL }, maxSize, edns);
  }
  if (!reply) {
    if (!recursion) return encodeReply({ ...base, flags: (flags & ~AUTHORITATIVE_ANSWER) | RCODE.REFUSED }, maxSize, edns);
    const forwarded = await (ctx.recurse ?? ((b: Buffer) => recurse(b, ctx.dns.recursors, ctx.dns.recursorTimeoutMs)))(msg);
    if (forwarded && forwarded.length <= maxSize) return forwarded;
    if (forwarded) return encodeReply({ ...base, flags: (flags & ~AUTHORITATIVE_ANSWER) | TRUNCATED_RESPONSE }, maxSize, edns);
    return encodeReply({ ...base, flags: (flags & ~AUTHORITATIVE_ANSWER) | RCODE.SERVFAIL }, maxSize, edns);
  }
  return encodeReply(
    { ...base, flags: flags | reply.rcode, answers: reply.answers, authorities: reply.authorities, additionals: reply.additionals },
    maxSize,
    edns,
  );
}

/**
 * Encodes `packet` in at most `maxSize` bytes: when it does not fit, additional records go,
 * then answers from the end, and TC is set. Echoes an EDNS record when the query had one.
 * A record that cannot be encoded (a name the library refuses) gives SERVFAIL.
 */
function encodeReply(packet: Packet, maxSize: number, edns: unknown): Buffer {
  const opt: OptAnswer[] = edns
    ? [{ type: 'OPT', name: '.', udpPayloadSize: UDP_MAX_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }]
    : [];
  const answers = packet.answers ?? [];
  const additionals = packet.additionals ?? [];
  const sized = (n: number, extra: Answer[]): Packet => ({ ...packet, answers: answers.slice(0, n), additionals: [...extra, ...opt] });
  try {
    const whole = sized(answers.length, additionals);
    if (encodingLength(whole) <= maxSize) return encode(whole);
    // Too big: no additional records, and the most answers that fit (binary search).
    let [lo, hi] = [0, answers.length];
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (encodingLength(sized(mid, [])) <= maxSize) lo = mid;
      else hi = mid - 1;
    }
    return encode({ ...sized(lo, []), flags: (packet.flags ?? 0) | TRUNCATED_RESPONSE });
  } catch {
    return encode({ type: 'response', id: packet.id, flags: ((packet.flags ?? 0) & ~0xf) | RCODE.SERVFAIL, questions: packet.questions });
  }
}

/** A header-only reply to `msg` with `rcode` (the id and RD bit of the query kept). */
function errorReply(msg: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(HEADER);
  out.writeUInt16BE(msg.readUInt16BE(0), 0);
  // QR set; the opcode and RD bits of the query kept.
  out.writeUInt16BE(0x8000 | (msg.readUInt16BE(2) & 0x7900) | rcode, 2);
  return out;
}
