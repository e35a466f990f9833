// Every kind of job, read top to bottom (one file each).

import type { JobKind } from './kind.js';
import * as deliverWebhook from '../webhooks/jobs.js';
import * as purgeEvents from './purge-events.js';
import * as purgeIdempotency from './purge-idempotency.js';
import * as finishPublish from '../launches/publish-recovery.js';
import { evaluateAutomations, retryAutomationAction } from '../automations/jobs.js';
import * as pushTrackerSpend from '../trackers/jobs.js';
import { scheduleTriggerJob, stepJob } from '../workflows/jobs.js';
import { subscriberJobKind } from '../events/subscribers.js';
import { eventSubscribers } from '../events/subscribers-list.js';

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
