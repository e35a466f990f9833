// Recurring job: keeps the event outbox and the delivery log to 30 days. Finished deliveries (and
// their attempts) older than that go first, then events no delivery refers to any more.

import type { JobContext } from './kind.js';

export const kind = 'purge-events';
export const schedule = '17 3 * * *';

/** How long events and the delivery log are kept. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 1000;

export async function run(ctx: JobContext): Promise<void> {
  const before = ctx.now() - RETENTION_MS;
  let removed = 0;
  for (;;) {
    const ids = await ctx.knex('webhook_deliveries').whereIn('status', ['succeeded', 'failed']).where('created_at', '<', before).limit(BATCH).pluck('id');
    if (!ids.length) break;
    await ctx.knex('webhook_attempts').whereIn('delivery_id', ids).delete();
    removed += await ctx.knex('webhook_deliveries').whereIn('id', ids).delete();
  }
  for (;;) {
    const ids = await ctx
      .knex('events as e')
      .where('e.created_at', '<', before)
      .whereNotExists((q) => q.select(ctx.knex.raw('1')).from('webhook_deliveries as d').whereRaw('d.event_id = e.id'))
      .limit(BATCH)
      .pluck('e.id');
    if (!ids.length) break;
    removed += await ctx.knex('events').whereIn('id', ids).delete();
  }
  if (removed) ctx.log.info({ job: kind, removed }, 'purged old events and delivery log entries');
}
