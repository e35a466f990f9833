// Recurring job: deletes idempotency records older than 24 hours, in batches.

import type { JobContext } from './kind.js';
import { purgeExpiredIdempotencyKeys } from '../pipeline/idempotency.js';

export const kind = 'purge-idempotency';
export const schedule = '*/10 * * * *';

export async function run(ctx: JobContext): Promise<void> {
  let total = 0;
  for (;;) {
    const n = await purgeExpiredIdempotencyKeys(ctx.knex, ctx.now());
    total += n;
    if (n === 0) break;
  }
  if (total) ctx.log.debug({ job: kind, removed: total }, 'purged expired idempotency records');
}
