// Recurring job: makes the delivery job of every endpoint with a due pending delivery due now. An
// emit wakes its endpoints right after its commit; this catches a process that died in between.

import type { JobContext } from './kind.js';
import { DELIVERY_JOB } from '../events/outbox.js';
import { wakeJob } from './queue/wake.js';

export const kind = 'sweep-deliveries';
export const schedule = '* * * * *';

export async function run(ctx: JobContext): Promise<void> {
  const now = ctx.now();
  const endpointIds: number[] = (
    await ctx.knex('webhook_deliveries').where({ status: 'pending' }).where('next_attempt_at', '<=', now).distinct('endpoint_id').limit(1000)
  ).map((r: { endpoint_id: number }) => Number(r.endpoint_id));
  if (!endpointIds.length) return;
  const idle = new Set(
    (
      await ctx
        .knex('jobs')
        .where({ kind: DELIVERY_JOB })
        .whereIn('job_key', endpointIds.map(String))
        .where((q) => q.whereNull('run_at').orWhere('run_at', '>', now))
        .whereNull('locked_by')
        .pluck('job_key')
    ).map(Number),
  );
  const missing = new Set(endpointIds);
  for (const key of await ctx.knex('jobs').where({ kind: DELIVERY_JOB }).whereIn('job_key', endpointIds.map(String)).pluck('job_key'))
    missing.delete(Number(key));
  for (const id of endpointIds) if (idle.has(id) || missing.has(id)) await wakeJob(ctx.knex, DELIVERY_JOB, String(id), now);
}
