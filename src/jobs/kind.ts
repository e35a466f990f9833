// What one kind of job is: its name, an optional cron schedule (recurring kinds keep one row each),
// a `run` that may be called again after a crash without acting twice (or a `runBatch` that takes
// several due jobs of one lane at once), and what happens after a failure (`retry`, `onGiveUp`).

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ClaimedJob } from './queue/job.js';
import type { JobServices } from './services.js';

export interface JobContext extends JobServices {
  knex: Knex;
  config: Config;
  log: Logger;
  now: () => number;
  /** False once the lease was lost (another worker holds the job): stop before acting again. */
  stillOwned(): boolean;
}

/**
 * When the job is due next: a time, null to park it until something wakes it, or `done` to delete
 * a one-off job. Recurring kinds return nothing and are scheduled by their cron.
 */
export type JobNext = number | null | 'done';

export interface JobKind {
  kind: string;
  /** Cron expression (UTC) for recurring kinds; the worker keeps one row per kind, key `schedule`. */
  schedule?: string;
  /** Keys of this kind made due whenever a worker starts (work an emit's wake may have missed). */
  startKeys?: string[];
  run(ctx: JobContext, job: ClaimedJob): Promise<JobNext | void>;
  /**
   * Milliseconds to wait before the next try after failure number `attempts` (1-based); null gives
   * up: the worker calls `onGiveUp` and deletes the job. Default: 5 s doubling per failure, capped
   * at an hour (with jitter), never giving up.
   */
  retry?(attempts: number): number | null;
  /** Called once a failed job is given up, before its row is deleted (again if the process dies in between). */
  onGiveUp?(ctx: JobContext, job: ClaimedJob, error: string): Promise<void>;
  /** Up to this many due jobs of one lane are claimed together and handed to `runBatch`. */
  batch?: number;
  /**
   * Runs the claimed jobs of one lane (in their order) and answers each one's outcome by job id: when
   * it is due next, or the Error it failed with (a job missing from the answer failed). Outcomes are
   * recorded one statement per kind of outcome.
   */
  runBatch?(ctx: JobContext, jobs: ClaimedJob[]): Promise<Map<number, JobNext | Error>>;
}
