// Job kind: send one webhook delivery (key = delivery id) in its endpoint's lane. A failed attempt
// is retried on the webhook schedule (5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h) for three days
// after the event, then given up (the delivery is marked failed). A disabled endpoint's deliveries
// are parked until it is turned back on.

import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { storedEvents } from '../events/store.js';
import { RETRY_WINDOW_MS, attemptDelivery, deliveryRetry, dueDelivery } from './deliver.js';
import { DELIVERY_JOB } from './lanes.js';
import { failDelivery, findDelivery, findEndpoint } from './store.js';

export const kind = DELIVERY_JOB;

export const retry = deliveryRetry;

export async function onGiveUp(ctx: JobContext, job: ClaimedJob): Promise<void> {
  await failDelivery(ctx.knex, Number(job.key), ctx.now());
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const delivery = await findDelivery(ctx.knex, Number(job.key));
  if (!delivery || delivery.status !== 'pending') return 'done';
  const endpoint = await findEndpoint(ctx.knex, delivery.endpointId, null);
  if (!endpoint) return 'done';
  if (!endpoint.enabled || !ctx.config.webhooksEnabled) return null;
  if (ctx.now() > delivery.createdAt + RETRY_WINDOW_MS) {
    await failDelivery(ctx.knex, delivery.id, ctx.now());
    return 'done';
  }
  const [event] = await storedEvents(ctx.knex, [delivery.eventId]);
  if (!event) return 'done';
  const result = await attemptDelivery({ knex: ctx.knex, secrets: ctx.secrets, sender: ctx.webhooks, now: ctx.now }, endpoint, dueDelivery(delivery, event));
  if (result.final) return 'done';
  throw new Error(result.statusCode === null ? `not delivered: ${result.error}` : `the receiver answered ${result.statusCode}`);
}
