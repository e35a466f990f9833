// Runs due jobs of one process. The database is the truth: node-schedule only wakes the claimer
// every second, a local emit wakes it at once, and every run holds a lease it keeps renewing, so
// any number of processes run each job once and a dead process's jobs are taken over when its
// lease runs out.

import crypto from 'node:crypto';
import schedule from 'node-schedule';
import cronParser from 'cron-parser';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { JobContext, JobKind } from './kind.js';
import type { JobServices } from './services.js';
import type { ClaimedJob } from './queue/job.js';
import { claimJobs } from './queue/claim.js';
import { completeJob, finishJob } from './queue/complete.js';
import { failJob } from './queue/fail.js';
import { renewLease } from './queue/renew.js';
import { ensureJob } from './queue/wake.js';

export interface WorkerOptions {
  knex: Knex;
  config: Config;
  log: Logger;
  now: () => number;
  kinds: JobKind[];
  services: JobServices;
  /** How long a claim holds a job before another worker may take it (renewed while running). */
  leaseMs: number;
  /** Jobs this process runs at once. */
  concurrency: number;
}

/** The next time `cron` (UTC) fires after `after`. */
export function nextCronTime(cron: string, after: number, tz = 'UTC'): number {
  return cronParser
    .parseExpression(cron, { currentDate: new Date(after), tz })
    .next()
    .getTime();
}

export class JobWorker {
  readonly id = `w-${crypto.randomBytes(6).toString('hex')}`;
  private readonly kinds: Map<string, JobKind>;
  private readonly active = new Set<Promise<void>>();
  private claims = 0;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private timer: schedule.Job | null = null;

  constructor(private readonly o: WorkerOptions) {
    this.kinds = new Map(o.kinds.map((k) => [k.kind, k]));
  }

  /** Starts claiming: every second, and whenever `nudge` is called. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.ensureRecurring();
    this.timer = schedule.scheduleJob(`${this.id}-claim`, '* * * * * *', () => this.nudge());
    this.nudge();
  }

  /** Claims now (coalesced): called after a commit that made work due. */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
      .catch((err) => this.o.log.error({ err }, 'job claimer failed'))
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** Stops claiming and waits for the runs in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.ticking;
    await Promise.all([...this.active]);
  }

  /**
   * Runs every job that is due now, and what those runs make due, until nothing is (tests call this
   * with a fixed clock instead of starting the timer).
   */
  async drain(): Promise<void> {
    await this.ensureRecurring();
    for (;;) {
      const started = await this.claimAndStart();
      if (!started && this.active.size === 0) return;
      await Promise.race([...this.active]);
    }
  }

  private async ensureRecurring(): Promise<void> {
    const now = this.o.now();
    for (const k of this.kinds.values()) {
      if (k.schedule) await ensureJob(this.o.knex, k.kind, 'schedule', nextCronTime(k.schedule, now), now);
    }
  }

  private async tick(): Promise<void> {
    while (!this.stopped && (await this.claimAndStart()) > 0) {
      // Claim again while there is room: a busy queue drains without waiting for the next second.
      if (this.active.size >= this.o.concurrency) await Promise.race([...this.active]);
    }
  }

  private async claimAndStart(): Promise<number> {
    const room = this.o.concurrency - this.active.size;
    if (room <= 0) return 0;
    const jobs = await claimJobs(this.o.knex, this.o.services.dialect, {
      workerId: `${this.id}.${++this.claims}`,
      now: this.o.now(),
      leaseMs: this.o.leaseMs,
      limit: room,
    });
    for (const job of jobs) {
      const run = this.run(job).finally(() => this.active.delete(run));
      this.active.add(run);
    }
    return jobs.length;
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { knex, log, now, leaseMs } = this.o;
    const kind = this.kinds.get(job.kind);
    let owned = true;
    // Renewed well before it runs out, so a slow run is never mistaken for a dead one.
    const renewal = setInterval(
      () => {
        renewLease(knex, job, now() + leaseMs)
          .then((ok) => {
            if (!ok) owned = false;
          })
          .catch((err) => log.warn({ err, job: job.kind, key: job.key }, 'could not renew a job lease'));
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    try {
      if (!kind) throw new Error(`no job kind "${job.kind}" in this build`);
      const ctx: JobContext = { ...this.o.services, knex, config: this.o.config, log, now, stillOwned: () => owned };
      const next = await kind.run(ctx, job);
      clearInterval(renewal);
      if (kind.schedule) await completeJob(knex, job, nextCronTime(kind.schedule, now()), now());
      else if (next === 'done') await finishJob(knex, job, now());
      else await completeJob(knex, job, next ?? null, now());
    } catch (err) {
      clearInterval(renewal);
      log.error({ err, job: job.kind, key: job.key, attempts: job.attempts + 1 }, 'job run failed; retrying with backoff');
      await failJob(knex, job, (err as Error)?.message ?? String(err), now()).catch((e) => log.error({ err: e }, 'could not record a failed job run'));
    }
  }
}
