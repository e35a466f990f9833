// The event catalogue: every event type the service emits, read top to bottom, each with the JSON
// Schema of its `data` (schemas/events/<type>.json). Webhook endpoints subscribe to these names.

export interface EventType {
  /** Stable dotted name, e.g. `launch.published`. */
  type: string;
  /** Schema $id of the event's `data`. */
  schema: string;
}

const define = (type: string): EventType => ({ type, schema: `event.${type}` });

export const EVENT_TYPES: readonly EventType[] = [
  define('launch.published'),
  define('launch.publish_failed'),
  define('budget.changed'),
  define('spend_ceiling.exceeded'),
  define('automation.triggered'),
  define('automation.action_failed'),
  define('workflow.execution.finished'),
  define('workflow.review.requested'),
  define('workflow.failed'),
  define('pipeline.card.moved'),
  define('approval.requested'),
  define('approval.decided'),
  define('tracker.push.failed'),
  define('tracker.push.disabled'),
  define('webhook.test'),
];

const byType = new Map(EVENT_TYPES.map((e) => [e.type, e]));

/** The catalogue entry of `type`, or undefined for a name the service never emits. */
export function eventType(type: string): EventType | undefined {
  return byType.get(type);
}
