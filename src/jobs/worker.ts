// Runs due jobs of one process. The database is the truth: a one-second timer only wakes the
// claimer, a local emit wakes it at once, and every run holds a lease it keeps renewing, so any
// number of processes run each job once and a dead process's jobs are taken over when its lease
// runs out.

import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { JobContext, JobKind, JobNext } from './kind.js';
import type { JobServices } from './services.js';
import type { ClaimedJob } from './queue/job.js';
import { claimJobs, releaseLane, type ClaimScope } from './queue/claim.js';
import { completeJobs, dropJobs, finishJobs } from './queue/complete.js';
import { backoffMs, failJobs, type Failure } from './queue/fail.js';
import { renewLease } from './queue/renew.js';
import { ensureJob, missingJobs, wakeJob } from './queue/wake.js';
import { DEPENDENCY_RETRY_AFTER_S, failedDependency } from '../pipeline/faults.js';
import { releaseJobs } from './queue/release.js';
import { countJobRun } from '../observability/metrics.js';
import { inSpan } from '../observability/tracing.js';
import { nextSimpleCronTime } from './simple-cron.js';

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
  /** The share of the queue this worker claims (default: all of it). */
  scope?: ClaimScope;
}

// cron-parser (with luxon and its time zone data) is loaded on the first cron computed, not at
// start-up: a restarted server finds its recurring jobs already scheduled.
const require = createRequire(import.meta.url);
let cronParser: typeof import('cron-parser') | null = null;

/** The next time `cron` (UTC) fires after `after`. */
export function nextCronTime(cron: string, after: number, tz = 'UTC'): number {
  // The built-in kinds' simple schedules need no cron-parser (a fresh database's start computes them).
  const simple = tz === 'UTC' ? nextSimpleCronTime(cron, after) : null;
  if (simple !== null) return simple;
  cronParser ??= require('cron-parser') as typeof import('cron-parser');
  return cronParser
    .parseExpression(cron, { currentDate: new Date(after), tz })
    .next()
    .getTime();
}

/** Claims start at most this often (nudges in between are folded into the next one). */
const CLAIM_GAP_MS = 5;

export class JobWorker {
  readonly id = `w-${crypto.randomBytes(6).toString('hex')}`;
  private readonly kinds: Map<string, JobKind>;
  private readonly maxBatch: number;
  /** Runs in progress, with the jobs each holds. */
  private readonly active = new Map<Promise<void>, ClaimedJob[]>();
  /** True while the last claim failed (the database did not answer): the worker is not claiming. */
  private claimFailing = false;
  private stopping: Promise<void> | null = null;
  private claims = 0;
  private ticking: Promise<void> | null = null;
  private again = false;
  /** The claim waiting for CLAIM_GAP_MS to pass since the last one. */
  private delayed: NodeJS.Timeout | null = null;
  private lastClaim = -Infinity;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private drained = false;
  /** Runs ended so far (drain claims again after a claim that a run ended during). */
  private runsEnded = 0;

  constructor(private readonly o: WorkerOptions) {
    this.kinds = new Map(o.kinds.map((k) => [k.kind, k]));
    this.maxBatch = Math.max(1, ...o.kinds.map((k) => (k.runBatch ? (k.batch ?? 1) : 1)));
  }

  /** Starts claiming: every second, and whenever `nudge` is called. */
  async start(): Promise<void> {
    this.stopped = false;
    this.stopping = null;
    await this.ensureRecurring();
    await this.wakeStartKeys();
    this.timer = setInterval(() => this.nudge(), 1000);
    this.nudge();
  }

  /**
   * Claims soon (coalesced): called after a commit that made work due and after each run. Claims
   * start at most every CLAIM_GAP_MS: the emits and finished runs of those milliseconds share one
   * claim (one claim per emit was most of the database work of a steady trickle of events).
   */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking || this.delayed) {
      this.again ||= this.ticking !== null;
      return;
    }
    const wait = this.lastClaim + CLAIM_GAP_MS - performance.now();
    if (wait > 0) {
      this.delayed = setTimeout(() => {
        this.delayed = null;
        this.nudge();
      }, wait);
      return;
    }
    this.lastClaim = performance.now();
    this.ticking = this.tick()
      .then(() => {
        this.claimFailing = false;
      })
      .catch((err) => {
        this.claimFailing = true;
        this.o.log.error({ err }, 'job claimer failed');
      })
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** True when started, not stopping, and the last claim reached the database (readiness). */
  claiming(): boolean {
    return !this.stopped && this.timer !== null && !this.claimFailing;
  }

  /**
   * Stops claiming and waits for the runs in progress: to their end, or for `graceMs` at most,
   * after which the leases of the runs still going end, so other processes take them at once.
   */
  stop(graceMs = Infinity): Promise<void> {
    // A second call (the server stopping, then the service closing) waits for the first.
    return (this.stopping ??= this.stopNow(graceMs));
  }

  private async stopNow(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.delayed) clearTimeout(this.delayed);
    this.delayed = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    const running = Promise.all([...this.active.keys()]);
    if (!Number.isFinite(graceMs)) return void (await running);
    let timer: NodeJS.Timeout | undefined;
    const over = new Promise<'over'>((resolve) => (timer = setTimeout(() => resolve('over'), graceMs)));
    const outcome = await Promise.race([running, over]);
    clearTimeout(timer);
    if (outcome !== 'over' || !this.active.size) return;
    const left = [...this.active.values()];
    for (const jobs of left) await releaseJobs(this.o.knex, jobs).catch((err) => this.o.log.error({ err, job: jobs[0].kind }, 'could not release a job'));
    this.o.log.warn({ jobs: left.map((jobs) => jobs[0].kind), graceMs }, 'shutdown grace over: running jobs released to other processes');
  }

  /**
   * Runs every job that is due now, and what those runs make due, until nothing is (tests call this
   * with a fixed clock instead of starting the timer).
   */
  async drain(): Promise<void> {
    await this.ensureRecurring();
    if (!this.drained) await this.wakeStartKeys();
    this.drained = true;
    for (;;) {
      // A run that ends while a claim is under way may make work due after the claim has looked
      // (a subscriber's deliveries): nothing is left only when a claim found nothing and no run
      // ended while it looked.
      const ended = this.runsEnded;
      const started = await this.claimAndStart();
      if (!started && this.active.size === 0 && this.runsEnded === ended) return;
      if (this.active.size) await Promise.race([...this.active.keys()]);
    }
  }

  private async ensureRecurring(): Promise<void> {
    const now = this.o.now();
    const recurring = [...this.kinds.values()].filter((k) => k.schedule);
    const missing = await missingJobs(
      this.o.knex,
      recurring.map((k) => k.kind),
      'schedule',
    );
    for (const k of recurring) {
      if (missing.has(k.kind)) await ensureJob(this.o.knex, k.kind, 'schedule', nextCronTime(k.schedule!, now), now);
    }
  }

  private async wakeStartKeys(): Promise<void> {
    const now = this.o.now();
    for (const k of this.kinds.values()) for (const key of k.startKeys ?? []) await wakeJob(this.o.knex, k.kind, key, now);
  }

  private async tick(): Promise<void> {
    while (!this.stopped && (await this.claimAndStart()) > 0) {
      // Claim again while there is room: a busy queue drains without waiting for the next second.
      if (this.active.size >= this.o.concurrency) await Promise.race([...this.active.keys()]);
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
      batchOf: (kind) => {
        const k = this.kinds.get(kind);
        return k?.runBatch ? (k.batch ?? 1) : 1;
      },
      maxBatch: this.maxBatch,
      scope: this.o.scope,
    });
    // The jobs of one lane come out next to each other: one run each group.
    const runs: ClaimedJob[][] = [];
    for (const job of jobs) {
      const last = runs.at(-1);
      if (last && job.lane !== null && last[0].lane === job.lane) last.push(job);
      else runs.push([job]);
    }
    for (const group of runs) {
      // A finished run may have made more work due (a subscriber's deliveries): claim again at once.
      const run = this.run(group).finally(() => {
        this.active.delete(run);
        this.runsEnded++;
        this.nudge();
      });
      this.active.set(run, group);
    }
    return runs.length;
  }

  private async run(jobs: ClaimedJob[]): Promise<void> {
    const { knex, log, now, leaseMs } = this.o;
    const first = jobs[0];
    const kind = this.kinds.get(first.kind);
    let owned = true;
    // Renewed well before it runs out, so a slow run is never mistaken for a dead one.
    const renewal = setInterval(
      () => {
        renewLease(knex, jobs, now() + leaseMs)
          .then((ok) => {
            if (!ok) owned = false;
          })
          .catch((err) => log.warn({ err, job: first.kind, key: first.key }, 'could not renew a job lease'));
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    const ctx: JobContext = { ...this.o.services, knex, config: this.o.config, log, now, stillOwned: () => owned };
    let outcomes: Map<number, JobNext | Error>;
    try {
      if (!kind) throw new Error(`no job kind "${first.kind}" in this build`);
      outcomes = await inSpan<Map<number, JobNext | Error>>(`job ${first.kind}`, { 'svc.job.kind': first.kind, 'svc.job.count': jobs.length }, async () =>
        kind.runBatch ? kind.runBatch(ctx, jobs) : new Map([[first.id, (await kind.run(ctx, first)) ?? null]]),
      );
    } catch (err) {
      outcomes = new Map(jobs.map((j) => [j.id, err instanceof Error ? err : new Error(String(err))]));
    }
    clearInterval(renewal);
    let write: (db: Knex) => Promise<void> = async () => {};
    try {
      write = await this.record(ctx, kind, jobs, outcomes);
    } catch (err) {
      log.error({ err, job: first.kind, key: first.key }, 'could not record a job run');
    }
    const release = async (db: Knex) => {
      if (first.lane !== null)
        await releaseLane(db, first.lane, first.lockedBy).catch((err) => log.error({ err, lane: first.lane }, 'could not release a job lane'));
    };
    const recordAndRelease = async (db: Knex) => {
      try {
        await write(db);
      } catch (err) {
        log.error({ err, job: first.kind, key: first.key }, 'could not record a job run');
      }
      await release(db);
    };
    // SQLite syncs its log file at each commit, stopping the event loop: the outcomes and the
    // lane's release are one commit there. MySQL takes them as statements of their own (a
    // transaction holding the jobs rows while it waits for the lane row would meet a claim, which
    // locks them the other way round).
    if (this.o.services.dialect === 'sqlite') await inTransaction(knex, (trx) => recordAndRelease(trx)).catch(async () => recordAndRelease(knex));
    else await recordAndRelease(knex);
  }

  /**
   * Settles the outcomes of one run (a kind giving a job up is told at once) and answers the
   * writes that record them, one statement per kind of outcome.
   */
  private async record(
    ctx: JobContext,
    kind: JobKind | undefined,
    jobs: ClaimedJob[],
    outcomes: Map<number, JobNext | Error>,
  ): Promise<(db: Knex) => Promise<void>> {
    const { log, now } = this.o;
    const done: ClaimedJob[] = [];
    const due = new Map<number | null, ClaimedJob[]>();
    const failures: Failure[] = [];
    const givenUp: Array<{ job: ClaimedJob; error: string }> = [];
    for (const job of jobs) {
      const outcome = outcomes.has(job.id) ? outcomes.get(job.id)! : new Error('the run answered nothing for this job');
      if (!(outcome instanceof Error)) countJobRun(job.kind, 'ok');
      if (outcome instanceof Error) {
        const attempts = job.attempts + 1;
        const dependency = failedDependency(outcome);
        // A dependency down (database, storage, Redis) is no bug of the job: tried again soon, never given up for it.
        const delay = dependency ? DEPENDENCY_RETRY_AFTER_S * 1000 : kind?.retry ? kind.retry(attempts) : backoffMs(job.attempts);
        if (dependency) log.warn({ err: outcome, job: job.kind, key: job.key, attempts, dependency }, 'job run met a dependency failure; retrying soon');
        else
          log.error({ err: outcome, job: job.kind, key: job.key, attempts }, delay === null ? 'job run failed; giving up' : 'job run failed; retrying later');
        countJobRun(job.kind, delay === null ? 'given_up' : 'failed');
        if (delay === null) givenUp.push({ job, error: outcome.message });
        else failures.push({ job, error: outcome.message, runAt: now() + delay });
      } else if (kind?.schedule) push(due, nextCronTime(kind.schedule, now()), job);
      else if (outcome === 'done') done.push(job);
      else push(due, outcome, job);
    }
    const dropped: ClaimedJob[] = [];
    for (const g of givenUp) {
      try {
        await kind?.onGiveUp?.(ctx, g.job, g.error);
        dropped.push(g.job);
      } catch (err) {
        // Not given up yet: tried again after the default backoff, and given up then.
        log.error({ err, job: g.job.kind, key: g.job.key }, 'could not give a job up');
        failures.push({ job: g.job, error: g.error, runAt: now() + backoffMs(g.job.attempts) });
      }
    }
    return async (db) => {
      await finishJobs(db, done, now());
      for (const [at, group] of due) await completeJobs(db, group, at, now());
      await failJobs(db, failures, now());
      await dropJobs(db, dropped);
    };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
