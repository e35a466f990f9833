// Runs the scheduled jobs of one server process with node-schedule.

import schedule from 'node-schedule';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as purgeIdempotency from './purge-idempotency.js';

interface Job {
  name: string;
  schedule: string;
  handler(knex: Knex, now: number): Promise<unknown>;
}

const jobs: Job[] = [purgeIdempotency];

/** Starts every job; the returned function stops them. */
export function startJobs(knex: Knex, log: Logger): () => Promise<void> {
  const scheduled = jobs.map((job) =>
    schedule.scheduleJob(job.name, job.schedule, async () => {
      try {
        const result = await job.handler(knex, Date.now());
        log.debug({ job: job.name, result }, 'job ran');
      } catch (err) {
        log.error({ err, job: job.name }, 'job failed');
      }
    }),
  );
  return async () => {
    for (const s of scheduled) s?.cancel();
    await schedule.gracefulShutdown();
  };
}
