// Records a failed run and makes the job due again after an exponential backoff with jitter
// (repeated on a deadlock, like completion).

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

const BASE_MS = 5_000;
const MAX_MS = 60 * 60 * 1000;

/** Delay before run number `attempts + 1`: 5 s, 10 s, 20 s ... capped at an hour, ±20 %. */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const exact = Math.min(MAX_MS, BASE_MS * 2 ** Math.min(attempts, 20));
  return Math.round(exact * (0.8 + 0.4 * random()));
}

export async function failJob(knex: Knex, job: ClaimedJob, error: string, now: number): Promise<number> {
  const runAt = now + backoffMs(job.attempts);
  await retrying(() =>
    knex('jobs')
      .where({ id: job.id, locked_by: job.lockedBy })
      .update({ attempts: job.attempts + 1, run_at: runAt, locked_by: null, locked_until: null, last_error: error.slice(0, 2000), updated_at: now }),
  );
  return runAt;
}
