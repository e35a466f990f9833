// The evaluation job of an ad account: one row per (brand, account), woken when its automations change.

import type { Knex } from 'knex';
import { wakeJob } from '../jobs/queue/wake.js';

export const AUTOMATION_JOB = 'evaluate-automations';

/** Makes the account's evaluation job look at its automations now (inside the changing transaction). */
export function wakeAccount(db: Knex | Knex.Transaction, brandId: number, accountId: string, now: number): Promise<void> {
  return wakeJob(db, AUTOMATION_JOB, `${brandId}:${accountId}`, now);
}
