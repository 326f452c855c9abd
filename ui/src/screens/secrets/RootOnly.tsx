/** Says that a screen's API is served in the root namespace only (sys/root-only.ts), when the tab works in another. */
import { currentSession } from '../../api/session';

export function RootOnlyNote({ what }: { what: string }) {
  const ns = currentSession()?.namespace ?? '';
  if (ns === '') return null;
  return (
    <p className="muted" data-testid="root-only">
      {what} only in the root namespace; this tab works in {ns.replace(/\/$/, '')}. Switch the namespace to root (empty) to use this screen.
    </p>
  );
}
