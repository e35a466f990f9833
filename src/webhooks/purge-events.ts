// Recurring job: keeps the event outbox and the delivery log to 30 days. Finished deliveries (and
// their attempts) older than that go first, then events no delivery refers to any more.

import type { JobContext } from '../jobs/kind.js';
import { deleteEvents, eventIdsBefore } from '../events/store.js';
import { deleteDeliveries, eventIdsWithDeliveries, finishedDeliveriesBefore } from './store.js';

export const kind = 'purge-events';
export const schedule = '17 3 * * *';

/** How long events and the delivery log are kept. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 1000;

export async function run(ctx: JobContext): Promise<void> {
  const before = ctx.now() - RETENTION_MS;
  let removed = 0;
  for (;;) {
    const ids = await finishedDeliveriesBefore(ctx.knex, before, BATCH);
    if (!ids.length) break;
    removed += await deleteDeliveries(ctx.knex, ids);
  }
  for (let after = 0; ;) {
    const ids = await eventIdsBefore(ctx.knex, before, after, BATCH);
    if (!ids.length) break;
    after = ids[ids.length - 1];
    const kept = await eventIdsWithDeliveries(ctx.knex, ids);
    removed += await deleteEvents(
      ctx.knex,
      ids.filter((id) => !kept.has(id)),
    );
  }
  if (removed) ctx.log.info({ job: kind, removed }, 'purged old events and delivery log entries');
}
