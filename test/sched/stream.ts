/**
 * Reading `GET /v1/event/stream` in tests: a stream opened with fetch whose body is split
 * into NDJSON lines (frames, heartbeats, the end line), and a poller for conditions that
 * settle asynchronously.
 */
import assert from 'node:assert/strict';
import type { JsonReply } from '../helpers.js';
import { ROOT } from './helpers.js';

/** An event as it arrives. */
export interface Ev {
  Topic: string;
  Type: string;
  Key: string;
  Namespace: string;
  FilterKeys: string[] | null;
  Index: number;
  Payload: JsonReply;
}

/** A frame: an event batch, a heartbeat `{}` or the server's end line `{Error}`. */
export interface Frame {
  Index?: number;
  Events?: Ev[];
  Error?: string;
}

/** An open stream read with fetch and a line splitter over `res.body`. */
export class Stream {
  /** Every byte read so far, as text. */
  raw = '';
  ended = false;
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;

  private constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {
    void this.pump();
  }

  /** Opens `GET /v1/event/stream?<query>`; a non-200 reply is returned as status and text. */
  static async open(base: string, query: string, token: string | null = ROOT): Promise<Stream> {
    const abort = new AbortController();
    const res = await fetch(`${base}/v1/event/stream${query ? `?${query}` : ''}`, { headers: token ? { 'X-Sched-Token': token } : {}, signal: abort.signal });
    return new Stream(res, abort);
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    let rest = '';
    try {
      for await (const chunk of this.res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        this.raw += text;
        rest += text;
        for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
          this.lines.push(rest.slice(0, nl));
          rest = rest.slice(nl + 1);
        }
        this.wake?.();
      }
    } catch {
      // aborted by close()
    }
    if (rest !== '') this.lines.push(rest);
    this.ended = true;
    this.wake?.();
  }

  /** The next line parsed, or undefined once the body ended. @throws after `timeoutMs`. */
  async line(timeoutMs = 5000): Promise<Frame | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${timeoutMs} ms; read so far: ${this.raw.slice(-300)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return JSON.parse(this.lines.shift()!) as Frame;
  }

  /** The next frame that is not a heartbeat (an event batch or the end line); undefined at the end. */
  async frame(timeoutMs = 5000): Promise<Frame | undefined> {
    for (;;) {
      const f = await this.line(timeoutMs);
      if (f === undefined || f.Index !== undefined || f.Error !== undefined) return f;
    }
  }

  /** The events of the next `n` event frames, flattened. */
  async events(n: number): Promise<Ev[]> {
    const out: Ev[] = [];
    for (let i = 0; i < n; i++) {
      const f = await this.frame();
      assert.ok(f?.Events, `frame ${i}: ${JSON.stringify(f)}`);
      for (const e of f.Events) assert.equal(e.Index, f.Index, 'every event carries its frame index');
      out.push(...f.Events);
    }
    return out;
  }

  /**
   * The events of the frame at state index `index`, skipping earlier frames (the scheduler's
   * own writes in between); fails when the stream passes `index` without such a frame.
   */
  async eventsAt(index: number): Promise<Ev[]> {
    for (;;) {
      const f = await this.frame();
      assert.ok(f?.Events, `waiting for index ${index}: ${JSON.stringify(f)}`);
      assert.ok(f.Index! <= index, `frame ${f.Index} is past ${index}: no frame at ${index}`);
      if (f.Index === index) return f.Events;
    }
  }

  /** Reads until the body ends; returns the last line (the end line). */
  async end(timeoutMs = 5000): Promise<Frame | undefined> {
    let last: Frame | undefined;
    for (;;) {
      const f = await this.line(timeoutMs);
      if (f === undefined) return last;
      last = f;
    }
  }

  close(): void {
    this.abort.abort();
  }
}

/** Polls `test` every 10 ms until true. @throws after `timeoutMs`. */
export async function until(test: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
