// Every outbox subscriber, one import per area (each consumed by its own `event-subscriber` job).

import type { EventSubscriber } from './subscribers.js';

export const eventSubscribers: EventSubscriber[] = [];
