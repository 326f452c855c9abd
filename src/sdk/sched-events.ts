/**
 * Reading the scheduler's event stream body (spec 002 "Event stream"; reference/sched.md
 * §3.2, §3.7): newline-delimited JSON frames, heartbeats `{}` skipped as the reference's Go
 * client does, and the stream's end turned into an error: an end line `{"Error": "…"}`, a
 * plain-text trailer (older servers append the bare error text), or the connection closing.
 *
 * @module
 */
import type { SchedEvent, SchedEventFrame } from './sched-types.js';

/**
 * The event stream ended other than by the caller's abort: the server's end line or
 * trailer (`event dropped from buffer`, `subscription closed by server, client should
 * resubscribe`, `ACL token expired`, …) as `message`, or the connection closed.
 */
export class SchedStreamError extends Error {
  override readonly name = 'SchedStreamError';
}

/** Text of the error when the body ends without an end line. */
export const SCHED_STREAM_CLOSED = 'the event stream was closed by the server';

/**
 * One NDJSON line as a frame; `undefined` for a blank line or a heartbeat (`Index` 0 and no
 * events, as the Go client). @throws SchedStreamError for an `{"Error": …}` line or a line
 * that is not a JSON object (its text is the message).
 */
export function parseSchedFrameLine(line: string): SchedEventFrame | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SchedStreamError(text);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SchedStreamError(text);
  const o = value as { Index?: unknown; Events?: unknown; Error?: unknown };
  if (o.Error !== undefined && o.Error !== null && o.Error !== '') throw new SchedStreamError(String(o.Error));
  const index = typeof o.Index === 'number' ? o.Index : 0;
  const events = Array.isArray(o.Events) ? (o.Events as SchedEvent[]) : [];
  if (index === 0 && events.length === 0) return undefined;
  return { Index: index, Events: events };
}

/**
 * The frames of a stream body (byte or string chunks, split anywhere). Ends by throwing
 * {@link SchedStreamError}: the server's end line or trailer, else {@link SCHED_STREAM_CLOSED}
 * when the body ends. The caller stops early by leaving its `for await` loop.
 */
export async function* readSchedFrames(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SchedEventFrame, never> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const frame = parseSchedFrameLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (frame) yield frame;
    }
  }
  buffered += decoder.decode();
  const last = parseSchedFrameLine(buffered);
  if (last) yield last;
  throw new SchedStreamError(SCHED_STREAM_CLOSED);
}
