// Finishes a claimed run: the row becomes due at `next` (null parks it until something wakes it),
// unless it was woken or rescheduled while running, in which case it keeps the time the wake or
// the schedule gave it. One statement, so a wake that lands during the run is never lost; repeated
// when MySQL picks it as a deadlock victim (a claim scanning the run_at index meets it), or the row
// would stay held until the lease ran out. A batch's outcomes are recorded one statement per kind
// of outcome.

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

/** `version = <the version each job had when claimed>`, one expression for a batch. */
function sameVersion(knex: Knex, jobs: ClaimedJob[]): Knex.Raw {
  return knex.raw(
    `case id ${jobs.map(() => 'when ? then ?').join(' ')} end`,
    jobs.flatMap((j) => [j.id, j.version]),
  );
}

/** Releases the lease; false when the lease had already been lost to another worker. */
export async function completeJob(knex: Knex, job: ClaimedJob, next: number | null, now: number): Promise<boolean> {
  return (await completeJobs(knex, [job], next, now)) === 1;
}

/** Releases the leases of jobs of one claim, each due at `next` unless woken meanwhile; answers how many were still held. */
export async function completeJobs(knex: Knex, jobs: ClaimedJob[], next: number | null, now: number): Promise<number> {
  if (!jobs.length) return 0;
  const ids = jobs.map((j) => j.id);
  const version = jobs.length === 1 ? knex.raw('?', [jobs[0].version]) : sameVersion(knex, jobs);
  return retrying(() =>
    knex('jobs')
      .whereIn('id', ids)
      .where({ locked_by: jobs[0].lockedBy })
      .update({
        run_at: knex.raw('case when version = ? then ? else run_at end', [version, next]),
        locked_by: null,
        locked_until: null,
        attempts: 0,
        last_error: null,
        updated_at: now,
      }),
  );
}

/** Deletes the done jobs of one claim in one statement; one woken while running is released instead (it runs again). */
export async function finishJobs(knex: Knex, jobs: ClaimedJob[], now: number): Promise<void> {
  if (!jobs.length) return;
  const deleted = await retrying(() =>
    knex('jobs')
      .whereIn(
        'id',
        jobs.map((j) => j.id),
      )
      .where({ locked_by: jobs[0].lockedBy })
      .where('version', jobs.length === 1 ? jobs[0].version : sameVersion(knex, jobs))
      .delete(),
  );
  if (deleted < jobs.length) await completeJobs(knex, jobs, now, now);
}

/** Deletes a job its kind gave up on (after `onGiveUp`), unless the lease was lost meanwhile. */
export async function dropJobs(knex: Knex, jobs: ClaimedJob[]): Promise<void> {
  if (!jobs.length) return;
  await retrying(() =>
    knex('jobs')
      .whereIn(
        'id',
        jobs.map((j) => j.id),
      )
      .where({ locked_by: jobs[0].lockedBy })
      .delete(),
  );
}
