// Extends the lease of jobs their holder is still running (and of their lane); false when the lease was lost.

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

export async function renewLease(knex: Knex, jobs: ClaimedJob | ClaimedJob[], until: number): Promise<boolean> {
  const list = Array.isArray(jobs) ? jobs : [jobs];
  const { lockedBy, lane } = list[0];
  const n = await retrying(() =>
    knex('jobs')
      .whereIn(
        'id',
        list.map((j) => j.id),
      )
      .where({ locked_by: lockedBy })
      .update({ locked_until: until }),
  );
  if (lane !== null) await retrying(() => knex('job_lanes').where({ lane, locked_by: lockedBy }).update({ locked_until: until }));
  return n > 0;
}
