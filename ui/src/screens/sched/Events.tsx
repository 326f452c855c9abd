/**
 * Scheduler: the live event stream (`GET /v1/event/stream`, newline-delimited JSON;
 * reference/sched.md events), with a topic filter sent to the server (`Topic:Key`, as the
 * API's `topic` parameter), a key filter applied here, and pause.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, request } from '../../api/client';
import { SchedNav } from './SchedNav';
import { ErrorNotice } from '../../components/Notice';

interface SchedEvent {
  Topic: string;
  Type: string;
  Key: string;
  Index: number;
}

/** Events kept on screen; older ones drop off. */
const KEEP = 500;

export function Events() {
  const [topic, setTopic] = useState('');
  const [applied, setApplied] = useState('');
  const [keyFilter, setKeyFilter] = useState('');
  const [paused, setPaused] = useState(false);
  const [events, setEvents] = useState<SchedEvent[]>([]);
  const [held, setHeld] = useState(0);
  const [error, setError] = useState<unknown>();
  const pausedRef = useRef(paused);
  const buffer = useRef<SchedEvent[]>([]);
  pausedRef.current = paused;

  useEffect(() => {
    const abort = new AbortController();
    setEvents([]);
    setError(undefined);
    const query = applied ? `?topic=${encodeURIComponent(applied)}` : '';
    const { url, init } = request('sched', `/v1/event/stream${query}`, { signal: abort.signal });
    const run = async () => {
      const res = await fetch(url, init);
      if (!res.ok || !res.body) throw new ApiError(res.status, [(await res.text()).trim() || `HTTP ${res.status}`]);
      const lines = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      for (;;) {
        const { value, done } = await lines.read();
        if (done) return;
        rest += value;
        const parts = rest.split('\n');
        rest = parts.pop() ?? '';
        const fresh = parts.flatMap((l) => (l.trim() ? ((JSON.parse(l) as { Events?: SchedEvent[] }).Events ?? []) : []));
        if (fresh.length === 0) continue;
        buffer.current.push(...fresh);
        // Paused: events are kept aside (counted) and shown on resume.
        if (pausedRef.current) setHeld(buffer.current.length);
        else flush();
      }
    };
    const flush = () => {
      const add = buffer.current;
      buffer.current = [];
      setHeld(0);
      setEvents((old) => [...add.reverse(), ...old].slice(0, KEEP));
    };
    run().catch((err: unknown) => {
      if (!abort.signal.aborted) setError(err);
    });
    return () => abort.abort();
  }, [applied]);

  const resume = () => {
    setPaused(false);
    const add = buffer.current;
    buffer.current = [];
    setHeld(0);
    setEvents((old) => [...add.reverse(), ...old].slice(0, KEEP));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied(topic.trim());
  };
  const shown = keyFilter ? events.filter((e) => e.Key.includes(keyFilter)) : events;

  return (
    <>
      <SchedNav />
      <h1>Event stream</h1>
      <form className="toolbar" onSubmit={submit}>
        <div className="field inline">
          <label htmlFor="ev-topic">Topic filter</label>
          <input id="ev-topic" value={topic} onChange={(e) => setTopic(e.target.value)} placeholder="Node:* or Allocation:<id>" />
        </div>
        <button type="submit">Apply</button>
        <div className="field inline">
          <label htmlFor="ev-key">Key contains</label>
          <input id="ev-key" value={keyFilter} onChange={(e) => setKeyFilter(e.target.value)} />
        </div>
        <button type="button" aria-pressed={paused} onClick={() => (paused ? resume() : setPaused(true))}>
          {paused ? `Resume${held ? ` (${held} waiting)` : ''}` : 'Pause'}
        </button>
      </form>
      <ErrorNotice error={error} />
      <p aria-live="polite" className="muted">
        {applied ? `Streaming topic ${applied}` : 'Streaming every topic'}; {shown.length} events shown.
      </p>
      <table data-testid="events">
        <thead>
          <tr>
            <th scope="col">Index</th>
            <th scope="col">Topic</th>
            <th scope="col">Type</th>
            <th scope="col">Key</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e, i) => (
            <tr key={`${e.Index}-${e.Topic}-${e.Key}-${i}`}>
              <td>{e.Index}</td>
              <td>{e.Topic}</td>
              <td>{e.Type}</td>
              <td>
                <code>{e.Key}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
