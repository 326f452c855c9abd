/**
 * A parameterized job's Dispatch form (the reference's `job dispatch` and its UI's dispatch
 * page): the payload as text (left out when the job's `parameterized` block forbids one),
 * a field per meta key the block names (required, then optional), sent as
 * `POST /v1/job/:id/dispatch` {JobID, Payload (base64 of the text's UTF-8), Meta (the keys
 * filled in)}; the dispatched child job is shown with a link, and the job's earlier
 * dispatches are listed. The server checks the request (required meta, payload mode, 16 KiB):
 * its refusal is shown as it says it, since the form blocks nothing itself.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { nsQuery, type JobStub } from './jobTypes';

/** The job's `ParameterizedJob` block (the reference's `ParameterizedJobConfig`): `Payload` is optional, required or forbidden. */
export interface ParameterizedBlock {
  Payload: string;
  MetaRequired: string[] | null;
  MetaOptional: string[] | null;
}

/** `text` as UTF-8 bytes in base64, as `JobDispatchRequest.Payload` takes it. */
function base64Utf8(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

const jobPath = (id: string, ns: string) => `/scheduler/jobs/${encodeURIComponent(id)}?${nsQuery(ns)}`;

export function JobDispatch({ id, ns, block, refreshMs }: { id: string; ns: string; block: ParameterizedBlock; refreshMs: number }) {
  const required = block.MetaRequired ?? [];
  const optional = block.MetaOptional ?? [];
  const [payload, setPayload] = useState('');
  const [meta, setMeta] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [dispatched, setDispatched] = useState<{ id: string; evalId: string }>();
  const queries = useQueryClient();
  const children = useQuery({
    queryKey: ['sched', 'job', ns, id, 'dispatched'],
    queryFn: () => api<JobStub[]>('sched', `/v1/jobs?prefix=${encodeURIComponent(`${id}/dispatch-`)}&${nsQuery(ns)}`),
    refetchInterval: refreshMs,
  });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setDispatched(undefined);
    // Only the keys given a value: an empty required field is a missing key, which the server names.
    const filled = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== ''));
    try {
      const r = await api<{ DispatchedJobID: string; EvalID: string }>('sched', `/v1/job/${encodeURIComponent(id)}/dispatch?${nsQuery(ns)}`, {
        method: 'POST',
        body: { JobID: id, Payload: block.Payload === 'forbidden' ? '' : base64Utf8(payload), Meta: filled },
      });
      setDispatched({ id: r.DispatchedJobID, evalId: r.EvalID });
      await queries.invalidateQueries({ queryKey: ['sched', 'job', ns, id, 'dispatched'] });
    } catch (err) {
      setError(err);
    }
  };

  // Field ids by position: a meta key may hold characters an id may not.
  const metaField = (key: string, isRequired: boolean, i: number) => (
    <div className="field" key={key}>
      <label htmlFor={`dispatch-meta-${isRequired ? 'r' : 'o'}${i}`}>
        Meta <code>{key}</code> {isRequired ? '(required)' : '(optional)'}
      </label>
      <input id={`dispatch-meta-${isRequired ? 'r' : 'o'}${i}`} value={meta[key] ?? ''} onChange={(e) => setMeta({ ...meta, [key]: e.target.value })} />
    </div>
  );

  return (
    <section aria-labelledby="job-dispatch">
      <h2 id="job-dispatch">Dispatch</h2>
      <p className="muted">
        A parameterized job runs only as the jobs dispatched from it. Payload {block.Payload}
        {required.length > 0 ? `; required meta: ${required.join(', ')}` : ''}
        {optional.length > 0 ? `; optional meta: ${optional.join(', ')}` : ''}.
      </p>
      <form className="narrow" onSubmit={(e) => void submit(e)} aria-label={`Dispatch job ${id}`}>
        {block.Payload !== 'forbidden' && (
          <div className="field">
            <label htmlFor="dispatch-payload">Payload ({block.Payload}, at most 16 KiB)</label>
            <textarea id="dispatch-payload" className="mono" rows={4} value={payload} onChange={(e) => setPayload(e.target.value)} />
          </div>
        )}
        {required.map((k, i) => metaField(k, true, i))}
        {optional.map((k, i) => metaField(k, false, i))}
        <ErrorNotice error={error} />
        <div className="actions">
          <button type="submit" className="primary">
            Dispatch
          </button>
        </div>
      </form>
      {dispatched && (
        <p role="status">
          Dispatched <Link to={jobPath(dispatched.id, ns)}>{dispatched.id}</Link>
          {dispatched.evalId ? (
            <>
              {' '}
              (evaluation <code>{dispatched.evalId.slice(0, 8)}</code>)
            </>
          ) : null}
          .
        </p>
      )}
      <ErrorNotice error={children.error} />
      {children.data && children.data.length > 0 ? (
        <ul className="plain" aria-label={`Jobs dispatched from ${id}`}>
          {children.data.map((c) => (
            <li key={c.ID}>
              <Link to={jobPath(c.ID, ns)}>{c.ID}</Link> — {c.Status}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing dispatched yet.</p>
      )}
    </section>
  );
}
