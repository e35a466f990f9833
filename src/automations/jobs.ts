// Job: evaluate the due automations of one ad account together (key `<brandId>:<accountId>`), so
// each window is read once per level for all of them, after retrying any of the account's failed
// actions whose retry is due. Due again at the account's next automation run or action retry.

import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { ServiceError } from '../errors.js';
import { evaluateAccount, retryPendingActions, type EngineDeps } from './engine.js';
import { nextRunAfter } from './schedule.js';
import { dueAutomations, nextRetryOnAccount, nextRunOnAccount, setNextRunAt } from './store.js';
import { AUTOMATION_JOB } from './wake.js';

export const kind = AUTOMATION_JOB;

function engineDeps(ctx: JobContext): EngineDeps {
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
  const due = await dueAutomations(ctx.knex, brandId, accountId, now);
  if (due.length) {
    await evaluateAccount(deps, due, { trigger: 'schedule', act: true });
    // Moved on only after the evaluation: a run that failed (a platform read refused) is retried by the job.
    for (const a of due) await setNextRunAt(ctx.knex, a.id, nextRunAfter(a.frequency, a.dailyHour, now, timezone));
  }
  const times = [await nextRunOnAccount(ctx.knex, brandId, accountId), await nextRetryOnAccount(ctx.knex, brandId, accountId)].filter((t) => t !== null);
  if (!times.length) return 'done';
  return Math.min(...times);
}
