/**
 * A card of the overview (issue 31 item 1): a service's state as a word and a sentence —
 * the colour of its border and badge repeats the word, never replaces it — what explains
 * it, and a link to the screen that shows more.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/client';

/** How a service is: all well, something to look at, failing, or not known (yet). */
export type CardState = 'ok' | 'warn' | 'bad' | 'unknown';

/** The word each state shows beside the sentence. */
const WORD: Record<CardState, string> = { ok: 'Healthy', warn: 'Attention', bad: 'Failing', unknown: 'Unknown' };

/**
 * The state a card shows for a failed read: a refusal (401, 403) says nothing of the
 * service's health, only that this login may not see it; anything else is a failure.
 */
export function errorState(err: unknown): [CardState, string] {
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return ['unknown', 'Your login may not read its state.'];
  return ['bad', `Not answering: ${(err as Error).message}`];
}

export function StatusCard(p: {
  /** Test and heading id stem, e.g. `secrets`. */
  readonly id: string;
  readonly title: string;
  readonly state: CardState;
  /** The state in one sentence. */
  readonly sentence: string;
  readonly to: string;
  readonly linkText: string;
  readonly children?: ReactNode;
}) {
  return (
    <section className={`status-card card-${p.state}`} aria-labelledby={`card-${p.id}`} data-testid={`card-${p.id}`} data-state={p.state}>
      <h2 id={`card-${p.id}`}>{p.title}</h2>
      <p className="card-line" aria-live="polite">
        <span className="card-badge">{WORD[p.state]}</span> {p.sentence}
      </p>
      {p.children}
      <Link to={p.to}>{p.linkText}</Link>
    </section>
  );
}
