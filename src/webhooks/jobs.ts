// Job kind: send webhook deliveries (key = delivery id) in their endpoint's lane, a batch at a
// time: the lane's due deliveries are claimed together, read with their events and endpoint in two
// statements, sent in order over the outbound client's kept-alive connections, and their outcomes
// recorded once for the batch (each answer's attempt is logged while the next requests go out, at
// most WEBHOOK_WINDOW of them unlogged; a crash sends those again with the same webhook-id).
// A failed attempt is retried on the webhook schedule (5 s, 5 min, 30 min, 2 h, 5 h, then every
// 10 h) for three days after the event, then given up (the delivery is marked failed). A disabled
// endpoint's deliveries are parked until it is turned back on.

import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { eventTexts } from '../events/store.js';
import { deliverBatch, deliveryRetry } from './deliver.js';
import { DELIVERY_JOB } from './lanes.js';
import { batchDeliveries, failDelivery } from './store.js';

export const kind = DELIVERY_JOB;

/** How long an answered attempt waits on SQLite for others to share its commit (well inside the window of a lane sending every millisecond). */
const SQLITE_GROUP_COMMIT_MS = 2;

/** Deliveries of one endpoint claimed and sent per run. */
export const batch = 100;

export const retry = deliveryRetry;

export async function onGiveUp(ctx: JobContext, job: ClaimedJob): Promise<void> {
  await failDelivery(ctx.knex, Number(job.key), ctx.now());
}

export async function runBatch(ctx: JobContext, jobs: ClaimedJob[]): Promise<Map<number, JobNext | Error>> {
  const { deliveries, endpoint } = await batchDeliveries(
    ctx.knex,
    jobs.map((j) => Number(j.key)),
  );
  const eventIds = [...new Set([...deliveries.values()].filter((d) => d.status === 'pending' && !d.answered).map((d) => d.eventId))];
  const events = new Map((await eventTexts(ctx.knex, eventIds)).map((e) => [e.id, e]));
  const outcomes = await deliverBatch(
    {
      knex: ctx.knex,
      secrets: ctx.secrets,
      sender: ctx.webhooks,
      now: ctx.now,
      enabled: ctx.config.webhooksEnabled,
      stillOwned: ctx.stillOwned,
      window: ctx.config.webhookWindow,
      inflight: ctx.config.webhookInflight,
      // On SQLite every commit syncs the log on the thread's event loop: attempts wait a moment to share one.
      groupCommitMs: ctx.dialect === 'sqlite' ? SQLITE_GROUP_COMMIT_MS : 0,
    },
    endpoint,
    jobs.map((j) => {
      const delivery = deliveries.get(Number(j.key));
      return { delivery, event: delivery ? events.get(delivery.eventId) : undefined };
    }),
  );
  return new Map(
    jobs.map((j, i) => {
      const o = outcomes[i];
      return [j.id, o === 'done' ? 'done' : o === 'parked' ? null : new Error(o.retry)];
    }),
  );
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const outcome = (await runBatch(ctx, [job])).get(job.id)!;
  if (outcome instanceof Error) throw outcome;
  return outcome;
}
