/**
 * Runs a job from HCL: the text goes through `POST /v1/jobs/parse` (Canonicalize) and the
 * job it returns is registered with `POST /v1/jobs`; a parse or validation error from either
 * call is shown next to the editor, its line marked when the message names one.
 */
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { nsQuery } from './jobTypes';
import { SchedNav } from './SchedNav';

const CodeEditor = lazy(() => import('../../components/CodeEditor'));

const EXAMPLE = `job "example" {
  datacenters = ["*"]
  type        = "service"

  group "app" {
    task "hello" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; sleep 300"]
      }
    }
  }
}
`;

/** The 1-based line an HCL error message names (`input.hcl:3: …`, `…:3,5-…` or `line 3`), if any. */
function errorLine(message: string): number | undefined {
  const m = /\.hcl:(\d+)/.exec(message) ?? /:(\d+),\d+/.exec(message) ?? /\bline (\d+)/i.exec(message);
  return m ? Number(m[1]) : undefined;
}

export function JobRun() {
  const [text, setText] = useState(EXAMPLE);
  const [error, setError] = useState<{ message: string; line?: number }>();
  const [busy, setBusy] = useState(false);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const run = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const job = await api<{ ID: string; Namespace?: string }>('sched', '/v1/jobs/parse', { method: 'POST', body: { JobHCL: text, Canonicalize: true } });
      await api('sched', '/v1/jobs', { method: 'POST', body: { Job: job } });
      await queries.invalidateQueries({ queryKey: ['sched', 'jobs'] });
      navigate(`/scheduler/jobs/${encodeURIComponent(job.ID)}?${nsQuery(job.Namespace || 'default')}`);
    } catch (err) {
      const message = (err as Error).message;
      setError({ message, line: errorLine(message) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <SchedNav />
      <h1>Run job</h1>
      <form onSubmit={(e) => void run(e)}>
        <Suspense fallback={<p>Loading editor…</p>}>
          <CodeEditor label="Job specification (HCL)" language="hcl" value={EXAMPLE} onChange={setText} errorLine={error?.line} />
        </Suspense>
        {error && (
          <p role="alert" className="error" data-testid="job-error">
            {error.line ? `Line ${error.line}: ` : ''}
            {error.message}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Run
          </button>
        </div>
      </form>
    </>
  );
}
