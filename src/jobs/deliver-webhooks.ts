// Job: deliver the pending webhook deliveries of one endpoint (key = endpoint id), in the order
// their events happened, one at a time, so an endpoint sees events in order unless it keeps
// failing (a failed delivery waits for its retry while later ones go on). Parks when nothing is due.

import type { JobContext, JobNext } from './kind.js';
import type { ClaimedJob } from './queue/job.js';
import { DELIVERY_JOB } from '../events/outbox.js';
import { RETRY_WINDOW_MS, attemptDelivery, dueDeliveries, type EndpointRow } from '../webhooks/deliver.js';

export const kind = DELIVERY_JOB;

const BATCH = 50;

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const endpointId = Number(job.key);
  const endpoint: EndpointRow | undefined = await ctx.knex('webhook_endpoints').where({ id: endpointId }).first();
  if (!endpoint) return 'done';
  const deps = { knex: ctx.knex, secrets: ctx.secrets, sender: ctx.webhooks, now: ctx.now };
  for (;;) {
    if (!endpoint.enabled || !ctx.config.webhooksEnabled) return null;
    const due = await dueDeliveries(ctx.knex, endpointId, ctx.now(), BATCH);
    if (!due.length) break;
    for (const delivery of due) {
      // Another worker took the job over (this one was too slow to renew): it delivers the rest.
      if (!ctx.stillOwned()) return ctx.now();
      if (ctx.now() > Number(delivery.created_at) + RETRY_WINDOW_MS) {
        await ctx.knex('webhook_deliveries').where({ id: delivery.id }).update({ status: 'failed', next_attempt_at: null, updated_at: ctx.now() });
        continue;
      }
      await attemptDelivery(deps, endpoint, delivery);
      if (!endpoint.enabled) return null;
    }
  }
  const next = await ctx
    .knex('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .whereNotNull('next_attempt_at')
    .min({ at: 'next_attempt_at' })
    .first();
  return next?.at === null || next?.at === undefined ? null : Number(next.at);
}
