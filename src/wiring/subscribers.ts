// Every outbox subscriber, one per area (each consumed by its own `event-subscriber` job). The
// outbox reads only their names and types; each one's module loads on the first run of its job.

import { lazySubscriber, type LazySubscriber } from '../events/subscribers.js';
import { EVENT_TYPES } from '../events/catalogue.js';

export const webhooksSubscriber = lazySubscriber(
  // Every type but webhook.test, which its operation delivers itself.
  { name: 'webhooks', types: EVENT_TYPES.map((t) => t.type).filter((t) => t !== 'webhook.test'), wants: true },
  async () => (await import('../webhooks/subscriber.js')).webhooksSubscriber,
);

export const eventSubscribers: LazySubscriber[] = [
  webhooksSubscriber,
  lazySubscriber(
    { name: 'workflows', types: ['automation.triggered', 'pipeline.card.moved'], wants: true },
    async () => (await import('../workflows/subscriber.js')).workflowSubscriber,
  ),
  lazySubscriber(
    { name: 'approval-chat', types: ['approval.requested', 'approval.decided'], wants: true },
    async () => (await import('../approvals/chat.js')).approvalChatSubscriber,
  ),
];
