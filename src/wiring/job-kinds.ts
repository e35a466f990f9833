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
