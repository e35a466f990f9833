// Finishes a claimed run: the row becomes due at `next` (null parks it until something wakes it),
// unless it was woken while running, in which case it is due again at once. One statement, so a
// wake that lands during the run is never lost; repeated when MySQL picks it as a deadlock victim
// (a claim scanning the run_at index meets it), or the row would stay held until the lease ran out.

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

/** Releases the lease; false when the lease had already been lost to another worker. */
export async function completeJob(knex: Knex, job: ClaimedJob, next: number | null, now: number): Promise<boolean> {
  const n = await retrying(() =>
    knex('jobs')
      .where({ id: job.id, locked_by: job.lockedBy })
      .update({
        run_at: knex.raw('case when version = ? then ? else ? end', [job.version, next, now]),
        locked_by: null,
        locked_until: null,
        attempts: 0,
        last_error: null,
        updated_at: now,
      }),
  );
  return n === 1;
}

/** Deletes a one-off job that is done, unless it was woken while running (then it runs again). */
export async function finishJob(knex: Knex, job: ClaimedJob, now: number): Promise<void> {
  const deleted = await retrying(() => knex('jobs').where({ id: job.id, locked_by: job.lockedBy, version: job.version }).delete());
  if (deleted === 0) await completeJob(knex, job, now, now);
}
