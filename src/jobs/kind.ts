// What one kind of job is: its name, an optional cron schedule (recurring kinds keep one row each),
// and a `run` that may be called again after a crash without acting twice.

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
  run(ctx: JobContext, job: ClaimedJob): Promise<JobNext | void>;
}
