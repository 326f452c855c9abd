/** Error and loading notices shared by the screens. */
import { ApiError } from '../api/client';

/** An error as the user should read it: the service's messages, and what a status means. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : undefined;
  const hint = status === 403 ? ' (your token is not allowed to do this)' : status === 503 ? ' (the service is sealed or unavailable)' : '';
  return (
    <p role="alert" className="error">
      {(error as Error).message}
      {hint}
    </p>
  );
}

export function Loading() {
  return <p aria-live="polite">Loading…</p>;
}
