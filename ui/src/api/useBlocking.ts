/**
 * A live read through the blocking queries of the discovery service (reference/mesh.md
 * §0.5) or the scheduler (reference/sched.md §1.5): each answer's `X-Mesh-Index` /
 * `X-Sched-Index` is sent back as `?index=`, so the next request waits until something
 * changed (or `wait` passed) and the screen updates as soon as it does.
 */
import { useEffect, useState } from 'react';
import { ApiError, request } from './client';

/** The latest body of `path` (a GET of `section`, the discovery service by default), kept up to date until unmounted. */
export function useBlocking<T>(path: string, section: 'mesh' | 'sched' = 'mesh'): { data?: T; error?: unknown } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  useEffect(() => {
    const abort = new AbortController();
    let index = '0';
    const loop = async () => {
      while (!abort.signal.aborted) {
        try {
          const sep = path.includes('?') ? '&' : '?';
          const { url, init } = request(section, `${path}${sep}index=${index}&wait=30s`, { signal: abort.signal });
          const res = await fetch(url, init);
          if (!res.ok) throw new ApiError(res.status, [((await res.text()) || `HTTP ${res.status}`).trim()]);
          const next = res.headers.get(`x-${section}-index`) ?? '0';
          const data = (await res.json()) as T;
          // An index that went backwards means the state was reset: start over (§0.5).
          index = Number(next) < Number(index) ? '0' : next;
          setState({ data });
        } catch (err) {
          if (abort.signal.aborted) return;
          setState((s) => ({ ...s, error: err }));
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    void loop();
    return () => abort.abort();
  }, [path, section]);
  return state;
}
