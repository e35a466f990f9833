// The job that ends an interrupted publish by itself (kind `finish-publish`, key: the launch id).
// Every publish schedules it when it claims the launch; once the publish stops renewing its claim
// (a crash, a database outage, a request whose runner died) for the job lease (JOB_LEASE_MS), the
// job takes it over and resumes it from what the service recorded and the platform holds, or
// finishes its rollback. A publish carried on past PUBLISH_DEADLINE_MS from its start (or past
// PUBLISH_MAX_RETRIES failed tries) is rolled back; a rollback that still fails then is abandoned:
// what is left on the platform paused and named in the launch's statusReason (abandonPublish). It is the publish's
// own continuation, not a new action: the caller's consent, scope and ceiling were checked and the
// amount reserved by the request that started it, so it runs the publish's steps directly in that
// caller's name (the identity stored with the attempt) instead of calling the operation again,
// which would check and reserve a second time.

import crypto from 'node:crypto';
import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import type { Principal } from '../auth/principal.js';
import { activityRecorder } from '../activity/recorder.js';
import type { MetricsCache } from '../platforms/metrics-cache.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import { outsideRequest } from '../platforms/live-http.js';
import { creativesFor } from './context.js';
import {
  abandonPublish,
  carryOn,
  finishRollback,
  publishLeaseMs,
  recordLaunchActivity,
  RECOVERY_JOB,
  type PublishContext,
  type PublishPlan,
  type StoredPlan,
} from './publish.js';
import { loadNodes, publishRecordOf, takeOverPublishing } from './store.js';

export const kind = RECOVERY_JOB;

const noCache: MetricsCache = { get: async () => null, set: async () => {}, invalidate: async () => {} };

/** Tried again soon after a failure (the platform or the database still down); the publish's deadline, not the queue, ends it. */
export function retry(attempts: number): number {
  return Math.min(30_000, 2_000 * attempts);
}

/** Takes an interrupted publish over and carries it to `published` or `publish_failed`. */
export function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  // No request waits on this work: the platform calls get the timing of background work.
  return outsideRequest(() => finish(ctx, job));
}

async function finish(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const launchId = Number(job.key);
  const record = await publishRecordOf(ctx.knex, launchId);
  if (!record || record.launch.status !== 'publishing' || !record.plan) return 'done';
  const staleAt = record.launch.updatedAt + publishLeaseMs(ctx);
  // Its runner is still renewing the claim: look again when it would have run out.
  if (staleAt > ctx.now()) return staleAt;
  const owner = `job_${crypto.randomBytes(9).toString('hex')}`;
  if ((await takeOverPublishing(ctx.knex, launchId, record.launch.updatedAt, owner, ctx.now())) !== 1) return ctx.now() + 1_000;

  const stored = record.plan as StoredPlan;
  const principal: Principal = { ...stored.actor, scopes: new Set(['publish']), brandIds: null };
  const requestId = `job_${RECOVERY_JOB}_${launchId}_${job.id}`;
  const pctx: PublishContext = {
    principal,
    db: ctx.knex,
    now: ctx.now,
    requestId,
    log: ctx.log,
    platforms: ctx.platforms,
    metrics: ctx.metrics ?? noCache,
    config: ctx.config,
    activity: activityRecorder(ctx.knex, principal, ctx.now),
    events: ctx.events,
    progress: () => {},
  };
  const { launch } = record;
  const nodes = await loadNodes(ctx.knex, launchId);
  const accounts = new Map<string, BrandAdAccount>();
  for (const id of new Set(Object.values(stored.campaignAccounts))) accounts.set(id, await ctx.platforms.account(ctx.knex, launch.brandId, id));
  const plan: PublishPlan = {
    launch,
    nodes,
    campaignAccounts: new Map(Object.entries(stored.campaignAccounts)),
    accounts,
    counted: stored.counted,
    campaignAmounts: new Map(Object.entries(stored.campaignAmounts)),
    creatives: await creativesFor(pctx, launch.brandId, nodes),
    creativesDir: ctx.config.creativesDir,
  };
  const rollingBack = record.rollbackStartedAt !== null;
  const overdue = ctx.now() >= (stored.startedAt ?? launch.updatedAt) + ctx.config.publishDeadlineMs || job.attempts >= ctx.config.publishMaxRetries;
  if (overdue) {
    // Past its deadline a publish only goes backward; a rollback that fails even now is abandoned.
    ctx.log.warn({ job: RECOVERY_JOB, launchId, attempts: job.attempts }, 'ending a publish past its deadline');
    const cause = new Error(`it did not end within its deadline (${job.attempts} failed tries)`);
    try {
      await finishRollback(pctx, plan, owner, record.attempt, cause, { final: true });
    } catch (err) {
      const after = await publishRecordOf(ctx.knex, launchId);
      if (after?.launch.status !== 'publishing') return 'done';
      await abandonPublish(pctx, { ...plan, nodes: await loadNodes(ctx.knex, launchId) }, owner, err);
    }
    return 'done';
  }
  await recordLaunchActivity(pctx, launch, rollingBack ? 'launch.publish_interrupted.rolling_back' : 'launch.publish_interrupted.resuming');
  ctx.log.warn({ job: RECOVERY_JOB, launchId, rollingBack }, 'taking over an interrupted publish');
  if (rollingBack) await finishRollback(pctx, plan, owner, record.attempt, new Error('the publish was interrupted while rolling back'));
  else {
    try {
      await carryOn(pctx, plan, owner, record.attempt, true);
      await recordLaunchActivity(pctx, launch, 'launch.publish_resumed');
    } catch (err) {
      // carryOn rolled back what it could; the launch tells whether anything is left to do.
      const after = await publishRecordOf(ctx.knex, launchId);
      if (after?.launch.status === 'publishing') throw err;
    }
  }
  return 'done';
}
