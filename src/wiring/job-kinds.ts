// Every kind of job, read top to bottom (one file each). Each kind's module loads on its first run
// (src/jobs/lazy.ts): what the worker reads at start is written here, and loading the module checks it.

import type { JobKind } from '../jobs/kind.js';
import { lazyJobKind } from '../jobs/lazy.js';
import { subscriberJobKind } from '../events/subscribers.js';
import { eventSubscribers, webhooksSubscriber } from './subscribers.js';
import { SUBSCRIBER_JOB } from '../events/outbox.js';
import type { ClaimScope } from '../jobs/queue/claim.js';
import { DELIVERY_LANE_PREFIX } from '../webhooks/lanes.js';

const deliverWebhook = lazyJobKind({ kind: 'deliver-webhook', batch: 100, has: ['runBatch', 'retry', 'onGiveUp'] }, () => import('../webhooks/jobs.js'));

export const jobKinds: JobKind[] = [
  deliverWebhook,
  lazyJobKind({ kind: 'purge-events', schedule: '17 3 * * *' }, () => import('../webhooks/purge-events.js')),
  lazyJobKind({ kind: 'purge-idempotency', schedule: '*/10 * * * *' }, () => import('../jobs/purge-idempotency.js')),
  lazyJobKind({ kind: 'expire-approvals', schedule: '* * * * *' }, () => import('../approvals/expire-job.js')),
  lazyJobKind({ kind: 'post-approval-chat' }, () => import('../approvals/chat.js')),
  lazyJobKind({ kind: 'finish-publish', has: ['retry'] }, () => import('../launches/publish-recovery.js')),
  lazyJobKind({ kind: 'evaluate-automations', batch: 1000, has: ['runBatch'] }, async () => (await import('../automations/jobs.js')).evaluateAutomations),
  lazyJobKind({ kind: 'retry-automation-action', has: ['retry', 'onGiveUp'] }, async () => (await import('../automations/jobs.js')).retryAutomationAction),
  lazyJobKind({ kind: 'tracker-push' }, () => import('../trackers/jobs.js')),
  lazyJobKind({ kind: 'run-workflow-step' }, async () => (await import('../workflows/jobs.js')).stepJob),
  lazyJobKind({ kind: 'workflow-schedule' }, async () => (await import('../workflows/jobs.js')).scheduleTriggerJob),
  subscriberJobKind(eventSubscribers),
];

/**
 * The webhook deliveries' share of the queue, which the delivery thread runs (DELIVERY_THREAD=on):
 * the fan-out of events into deliveries (the `webhooks` subscriber) and the endpoints' lanes.
 */
export const deliveryJobKinds: JobKind[] = [deliverWebhook, subscriberJobKind([webhooksSubscriber])];

export const deliveryScope: Omit<ClaimScope, 'mode'> = {
  lanePrefixes: [DELIVERY_LANE_PREFIX],
  singles: [{ kind: SUBSCRIBER_JOB, key: webhooksSubscriber.name }],
};
