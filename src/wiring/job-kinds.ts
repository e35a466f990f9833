// Every kind of job, read top to bottom (one file each).

import type { JobKind } from '../jobs/kind.js';
import * as deliverWebhook from '../webhooks/jobs.js';
import * as purgeEvents from '../webhooks/purge-events.js';
import * as purgeIdempotency from '../jobs/purge-idempotency.js';
import * as finishPublish from '../launches/publish-recovery.js';
import { evaluateAutomations, retryAutomationAction } from '../automations/jobs.js';
import * as pushTrackerSpend from '../trackers/jobs.js';
import { scheduleTriggerJob, stepJob } from '../workflows/jobs.js';
import { subscriberJobKind } from '../events/subscribers.js';
import { eventSubscribers } from './subscribers.js';
import { webhooksSubscriber } from '../webhooks/subscriber.js';
import { SUBSCRIBER_JOB } from '../events/outbox.js';
import type { ClaimScope } from '../jobs/queue/claim.js';
import { DELIVERY_LANE_PREFIX } from '../webhooks/lanes.js';

export const jobKinds: JobKind[] = [
  deliverWebhook,
  purgeEvents,
  purgeIdempotency,
  finishPublish,
  evaluateAutomations,
  retryAutomationAction,
  pushTrackerSpend,
  stepJob,
  scheduleTriggerJob,
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
