// Job: the tracker spend push of one brand (key = brand id). Each run is one push cycle, then the
// row waits for the next hour (PUSH_CRON, UTC); a push turned off or a tracker disconnected parks
// it until set-tracker-push turns it on again. A cycle only sets costs, so a run repeated after a
// crash (the lease ran out) sets the same costs again.

import type { JobContext, JobNext } from './kind.js';
import type { ClaimedJob } from './queue/job.js';
import type { Knex } from 'knex';
import { nextCronTime } from './worker.js';
import { PUSH_CRON, pushSetting, runPushCycle } from '../trackers/push.js';

export const kind = 'tracker-push';

/** Makes the brand's push job due at the next push hour (creating its row), inside the caller's transaction. */
export async function schedulePush(db: Knex | Knex.Transaction, brandId: number, now: number): Promise<void> {
  const runAt = nextCronTime(PUSH_CRON, now);
  await db('jobs')
    .insert({ kind, job_key: String(brandId), payload: null, run_at: runAt, attempts: 0, version: 1, created_at: now, updated_at: now })
    .onConflict(['kind', 'job_key'])
    .merge({ run_at: runAt, version: db.raw('jobs.version + 1'), updated_at: now });
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const brandId = Number(job.key);
  const [setting, conn] = await Promise.all([pushSetting(ctx.knex, brandId), ctx.knex('tracker_connections').where({ brand_id: brandId }).first('brand_id')]);
  if (!setting.enabled || !conn) return null;
  const result = await runPushCycle({ knex: ctx.knex, trackers: ctx.trackers, platforms: ctx.platforms, secrets: ctx.secrets, events: ctx.events, now: ctx.now, log: ctx.log }, brandId);
  ctx.log.info({ job: kind, brandId, outcome: result.outcome, pushed: result.pushed.length, skipped: result.skipped.length }, 'tracker push cycle');
  return result.outcome === 'disabled' ? null : nextCronTime(PUSH_CRON, ctx.now());
}
