/**
 * The scheduler's event stream machinery (DESIGN.md "Event broker"): a bounded buffer of
 * committed batches, filtered subscriptions, the broker that owns them and NDJSON framing.
 * The HTTP endpoint parses the query, calls {@link EventBroker.subscribe} and then
 * {@link writeNdjson}; the buffer's internals stay private.
 *
 * @module
 */

export { CLOSED_BY_SERVER, parseTopics, SubscriptionEnded, TopicParseError } from './subscription.js';
export type { TopicFilter } from './subscription.js';
export { EventBroker, SubscribeDenied } from './broker.js';
export type { Authorize, AuthorizeVerdict, SubscribeRequest, Subscribed } from './broker.js';
export { DEFAULT_HEARTBEAT_MS, writeNdjson } from './ndjson.js';
