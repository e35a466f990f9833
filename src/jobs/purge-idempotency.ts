// Scheduled job: deletes idempotency records older than 24 hours. Safe to run on every instance.

import type { Knex } from 'knex';
import { purgeExpiredIdempotencyKeys } from '../pipeline/idempotency.js';

export const name = 'purge-idempotency';
export const schedule = '*/10 * * * *';

/** Deletes expired records in batches; returns how many were removed. */
export async function handler(knex: Knex, now: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await purgeExpiredIdempotencyKeys(knex, now);
    total += n;
    if (n === 0) return total;
  }
}
