// Every outbox subscriber, one import per area (each consumed by its own `event-subscriber` job).

import type { EventSubscriber } from '../events/subscribers.js';
import { webhooksSubscriber } from '../webhooks/subscriber.js';
import { workflowSubscriber } from '../workflows/subscriber.js';

export const eventSubscribers: EventSubscriber[] = [webhooksSubscriber, workflowSubscriber];
