// Finishes a claimed run: the row becomes due at `next` (null parks it until something wakes it),
// unless it was woken or rescheduled while running, in which case it keeps the time the wake or
// the schedule gave it. One statement, so a wake that lands during the run is never lost; repeated
// when MySQL picks it as a deadlock victim (a claim scanning the run_at index meets it), or the row
// would stay held until the lease ran out. A batch's outcomes are recorded one statement per kind
// of outcome.

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import { inList, prepared } from '../../db/prepared.js';
import type { ClaimedJob } from './job.js';

/**
 * The jobs of one claim as statement pieces: `ids` for `id in (...)` and `version` for `version =
 * <the version each had when claimed>` (a case over the ids), padded alike (src/db/prepared.ts).
 */
function claimedOf(jobs: ClaimedJob[]): { ids: string; version: string; idParams: number[]; versionParams: number[] } {
  const padded = inList(jobs).params;
  return {
    ids: padded.map(() => '?').join(', '),
    version: `case id ${padded.map(() => 'when ? then ?').join(' ')} end`,
    idParams: padded.map((j) => j.id),
    versionParams: padded.flatMap((j) => [j.id, j.version]),
  };
}

/** Releases the lease; false when the lease had already been lost to another worker. */
export async function completeJob(knex: Knex, job: ClaimedJob, next: number | null, now: number): Promise<boolean> {
  return (await completeJobs(knex, [job], next, now)) === 1;
}

/** Releases the leases of jobs of one claim, each due at `next` unless woken meanwhile; answers how many were still held. */
export async function completeJobs(knex: Knex, jobs: ClaimedJob[], next: number | null, now: number): Promise<number> {
  if (!jobs.length) return 0;
  const c = claimedOf(jobs);
  return (
    await retrying(() =>
      prepared(
        knex,
        `update jobs set run_at = case when version = ${c.version} then ? else run_at end, locked_by = null, locked_until = null, attempts = 0, last_error = null, updated_at = ? ` +
          `where id in (${c.ids}) and locked_by = ?`,
        [...c.versionParams, next, now, ...c.idParams, jobs[0].lockedBy],
      ),
    )
  ).changes;
}

/** Deletes the done jobs of one claim in one statement; one woken while running is released instead (it runs again). */
export async function finishJobs(knex: Knex, jobs: ClaimedJob[], now: number): Promise<void> {
  if (!jobs.length) return;
  const c = claimedOf(jobs);
  const deleted = (
    await retrying(() =>
      prepared(knex, `delete from jobs where id in (${c.ids}) and locked_by = ? and version = ${c.version}`, [
        ...c.idParams,
        jobs[0].lockedBy,
        ...c.versionParams,
      ]),
    )
  ).changes;
  if (deleted < jobs.length) await completeJobs(knex, jobs, now, now);
}

/** Deletes a job its kind gave up on (after `onGiveUp`), unless the lease was lost meanwhile. */
export async function dropJobs(knex: Knex, jobs: ClaimedJob[]): Promise<void> {
  if (!jobs.length) return;
  const c = claimedOf(jobs);
  await retrying(() => prepared(knex, `delete from jobs where id in (${c.ids}) and locked_by = ?`, [...c.idParams, jobs[0].lockedBy]));
}
