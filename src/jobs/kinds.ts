// Every kind of job, read top to bottom (one file each).

import type { JobKind } from './kind.js';
import * as deliverWebhooks from './deliver-webhooks.js';
import * as purgeEvents from './purge-events.js';
import * as purgeIdempotency from './purge-idempotency.js';
import * as sweepDeliveries from './sweep-deliveries.js';
import { evaluateAutomations, retryAutomationAction } from '../automations/jobs.js';
import * as pushTrackerSpend from '../trackers/jobs.js';
import * as runWorkflowStep from '../workflows/jobs.js';
import * as workflowTriggers from './workflow-triggers.js';
import { subscriberJobKind } from '../events/subscribers.js';
import { eventSubscribers } from '../events/subscribers-list.js';

export const jobKinds: JobKind[] = [
  deliverWebhooks,
  sweepDeliveries,
  purgeEvents,
  purgeIdempotency,
  evaluateAutomations,
  retryAutomationAction,
  pushTrackerSpend,
  runWorkflowStep,
  workflowTriggers,
  subscriberJobKind(eventSubscribers),
];
