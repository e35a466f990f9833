// Job: evaluate the due automations of one ad account together (key `<brandId>:<accountId>`), so
// each window is read once per level for all of them, after retrying any of the account's failed
// actions whose retry is due. Due again at the account's next automation run or action retry.

import type { JobContext, JobNext } from './kind.js';
import type { ClaimedJob } from './queue/job.js';
import { ServiceError } from '../errors.js';
import { evaluateAccount, nextRetryAt, retryPendingActions, type EngineDeps } from '../automations/engine.js';
import { automationOf } from '../automations/rule.js';
import { nextRunAfter } from '../automations/schedule.js';
import { AUTOMATION_JOB } from '../automations/wake.js';

export const kind = AUTOMATION_JOB;

export function engineDeps(ctx: JobContext): EngineDeps {
  return {
    knex: ctx.knex,
    platforms: ctx.platforms,
    events: ctx.events,
    now: ctx.now,
    log: ctx.log,
    invoke: ctx.invoke,
    outbound: ctx.outbound,
    chatWebhookUrl: ctx.config.chatWebhookUrl,
  };
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const split = job.key.indexOf(':');
  const brandId = Number(job.key.slice(0, split));
  const accountId = job.key.slice(split + 1);
  const deps = engineDeps(ctx);
  let timezone: string;
  try {
    timezone = (await ctx.platforms.account(ctx.knex, brandId, accountId)).timezone;
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'not_found') return 'done';
    throw err;
  }
  await retryPendingActions(deps, brandId, accountId);
  if (!ctx.stillOwned()) return ctx.now();
  const now = ctx.now();
  const due = (await ctx.knex('automations').where({ brand_id: brandId, account_id: accountId, status: 'ACTIVE' }).where('next_run_at', '<=', now)).map(
    automationOf,
  );
  if (due.length) {
    await evaluateAccount(deps, due, { trigger: 'schedule', act: true });
    // Moved on only after the evaluation: a run that failed (a platform read refused) is retried by the job.
    for (const a of due) {
      await ctx
        .knex('automations')
        .where({ id: a.id, status: 'ACTIVE' })
        .update({ next_run_at: nextRunAfter(a.frequency, a.dailyHour, now, timezone) });
    }
  }
  const next = await ctx.knex('automations').where({ brand_id: brandId, account_id: accountId, status: 'ACTIVE' }).min({ at: 'next_run_at' }).first();
  const retry = await nextRetryAt(ctx.knex, brandId, accountId);
  const times = [next?.at, retry].filter((t) => t !== null && t !== undefined).map(Number);
  if (!times.length) return 'done';
  return Math.min(...times);
}
