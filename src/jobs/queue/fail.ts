// Records failed runs: each job becomes due again after its kind's retry delay, by default an
// exponential backoff with jitter (repeated on a deadlock, like completion).

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

export interface Failure {
  job: ClaimedJob;
  error: string;
  /** When to try again. */
  runAt: number;
}

/** Records one failed run, due again at `runAt` (default: the backoff after its attempts so far). */
export async function failJob(knex: Knex, job: ClaimedJob, error: string, now: number, runAt = now + backoffMs(job.attempts)): Promise<number> {
  await failJobs(knex, [{ job, error, runAt }], now);
  return runAt;
}

/** Records the failed runs of one claim in one statement. */
export async function failJobs(knex: Knex, failures: Failure[], now: number): Promise<void> {
  if (!failures.length) return;
  const one = failures.length === 1;
  const byId = (pick: (f: Failure) => number | string) =>
    one
      ? knex.raw('?', [pick(failures[0])])
      : knex.raw(
          `case id ${failures.map(() => 'when ? then ?').join(' ')} end`,
          failures.flatMap((f) => [f.job.id, pick(f)]),
        );
  await retrying(() =>
    knex('jobs')
      .whereIn(
        'id',
        failures.map((f) => f.job.id),
      )
      .where({ locked_by: failures[0].job.lockedBy })
      .update({
        attempts: knex.raw('attempts + 1'),
        run_at: byId((f) => f.runAt),
        locked_by: null,
        locked_until: null,
        last_error: byId((f) => f.error.slice(0, 2000)),
        updated_at: now,
      }),
  );
}
