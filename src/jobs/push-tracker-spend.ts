// Job: the tracker spend push of one brand (key = brand id), one cycle at a time. Due every hour
// (PUSH_CRON, UTC), it starts a scheduled run; run-tracker-push makes it due at once, and then it
// carries out the manual run that operation started. A run interrupted by a crash is carried out
// again (costs are set, never added). A push turned off or a tracker disconnected parks the job
// until set-tracker-push turns it on again.

import type { JobContext, JobNext } from './kind.js';
import type { ClaimedJob } from './queue/job.js';
import type { Knex } from 'knex';
import { nextCronTime } from './worker.js';
import { wakeJob } from './queue/wake.js';
import { PUSH_CRON, executePushRun, pushSetting } from '../trackers/push.js';
import { finishRun, runningRun, startPushRun } from '../trackers/push-runs.js';

export const kind = 'tracker-push';

/** Makes the brand's push job due at the next push hour (creating its row), inside the caller's transaction. */
export async function schedulePush(db: Knex | Knex.Transaction, brandId: number, now: number): Promise<void> {
  const runAt = nextCronTime(PUSH_CRON, now);
  await db('jobs')
    .insert({ kind, job_key: String(brandId), payload: null, run_at: runAt, attempts: 0, version: 1, created_at: now, updated_at: now })
    .onConflict(['kind', 'job_key'])
    .merge({ run_at: runAt, version: db.raw('jobs.version + 1'), updated_at: now });
}

/** Makes the brand's push job due now, to carry out a manual run (inside the caller's transaction). */
export function pushNow(db: Knex | Knex.Transaction, brandId: number, now: number): Promise<void> {
  return wakeJob(db, kind, String(brandId), now);
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const brandId = Number(job.key);
  const [setting, conn, brand] = await Promise.all([
    pushSetting(ctx.knex, brandId),
    ctx.knex('tracker_connections').where({ brand_id: brandId }).first('brand_id'),
    ctx.knex('brands').where({ id: brandId }).first('organization_id'),
  ]);
  const pending = await runningRun(ctx.knex, brandId);
  if (!setting.enabled || !conn || !brand) {
    // Turned off or disconnected since the run was asked for: it ends saying so, and the job parks.
    if (pending)
      await finishRun(
        ctx.knex,
        Number(pending.id),
        { pushed: [], skipped: [], drift: [], done: 0, total: 0 },
        'failed',
        'The push was turned off or the tracker disconnected before this run could start.',
        ctx.now(),
      );
    return null;
  }
  const runRow =
    pending ??
    (await ctx
      .knex('tracker_push_runs')
      .where({ id: await startPushRun(ctx.knex, brandId, 'schedule', ctx.now()) })
      .first());
  await executePushRun(
    { knex: ctx.knex, trackers: ctx.trackers, platforms: ctx.platforms, secrets: ctx.secrets, events: ctx.events, now: ctx.now, log: ctx.log },
    runRow,
  );
  const done = await ctx.knex('tracker_push_runs').where({ id: runRow.id }).first('status', 'trigger', 'progress_done', 'error');
  ctx.log.info(
    { job: kind, brandId, runId: Number(runRow.id), trigger: done?.trigger, status: done?.status, pushed: Number(done?.progress_done ?? 0) },
    'tracker push cycle',
  );
  const after = await pushSetting(ctx.knex, brandId);
  if (!after.enabled) return null;
  // Another manual run asked for meanwhile goes next, at once.
  return (await runningRun(ctx.knex, brandId)) ? ctx.now() : nextCronTime(PUSH_CRON, ctx.now());
}
