/**
 * The event stream's vocabulary: the event and batch shapes of spec 002 "Event stream
 * frame". Topic names in a subscription are not validated (an unknown one matches
 * nothing), so no list of the spec's topics or event types is kept here.
 *
 * @module
 */

/**
 * One event as it goes on the wire (spec 002 "Event stream frame"). Immutable once
 * published: the buffer shares one object with every subscriber.
 */
export interface StreamEvent {
  readonly Topic: string;
  readonly Type: string;
  /** The object's identifier on its topic (node ID, token accessor, policy name, ...). */
  readonly Key: string;
  /** `""` for objects outside namespaces (Node, ACL objects, NodePool); such events pass every namespace filter. */
  readonly Namespace: string;
  /** Further keys a `Topic:Key` filter matches (job ID of an allocation, ...); null when none. */
  readonly FilterKeys: readonly string[] | null;
  /** The index of the commit that produced the event. */
  readonly Index: number;
  /** The object under its wrapper key, e.g. `{ "Node": {...} }`; secrets already redacted. */
  readonly Payload: Readonly<Record<string, unknown>>;
}

/** The events of one committed write, in commit order; `index` is the commit's index. */
export interface EventBatch {
  readonly index: number;
  readonly events: readonly StreamEvent[];
}
