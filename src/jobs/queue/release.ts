// Gives back the jobs a stopping process still runs once its grace is over: their leases end now,
// so another process claims them at once instead of waiting for the lease to run out. A run that
// still finishes here records nothing (every later statement checks the holder).

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

/** Ends the leases `lockedBy` holds on `jobs` (and on their lane), leaving each due when it was. */
export async function releaseJobs(knex: Knex, jobs: ClaimedJob[]): Promise<number> {
  if (!jobs.length) return 0;
  const { lockedBy, lane } = jobs[0];
  const n = await retrying(() =>
    knex('jobs')
      .whereIn(
        'id',
        jobs.map((j) => j.id),
      )
      .where({ locked_by: lockedBy })
      .update({ locked_by: null, locked_until: null }),
  );
  if (lane !== null) await retrying(() => knex('job_lanes').where({ lane, locked_by: lockedBy }).update({ locked_by: null, locked_until: null }));
  return n;
}
