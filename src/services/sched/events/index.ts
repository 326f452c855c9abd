/**
 * The scheduler's event stream machinery (DESIGN.md "Event broker"): a bounded buffer of
 * committed batches, filtered subscriptions, the broker that owns them and NDJSON framing.
 * The HTTP endpoint parses the query, calls {@link EventBroker.subscribe} and then
 * {@link writeNdjson}; the buffer's internals stay private.
 *
 * @module
 */

export { EVENT_TYPES, TOPICS } from './event.js';
export type { EventBatch, EventType, StreamEvent, Topic } from './event.js';
export { DEFAULT_EVENT_BUFFER_SIZE } from './buffer.js';
export { CLOSED_BY_SERVER, filterEvents, parseTopics, Subscription, SubscriptionEnded, TopicParseError } from './subscription.js';
export type { EndCode, SubscriptionFilter, TopicFilter } from './subscription.js';
export { DEFAULT_PUBLISH_QUEUE_BATCHES, EventBroker, SubscribeDenied } from './broker.js';
export type { Authorize, AuthorizeVerdict, EventBrokerOptions, StartReport, SubscribeRequest, Subscribed, SubscriberToken } from './broker.js';
export { DEFAULT_HEARTBEAT_MS, encodeBatch, encodeEnd, HEARTBEAT_FRAME, writeNdjson } from './ndjson.js';
export type { IntervalTimers, NdjsonOptions } from './ndjson.js';
