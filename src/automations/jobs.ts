// The automations area's job kinds, thin adapters over the engine. Both run in the ad account's
// lane (queue.ts), so one worker at a time acts on an account.
//
// evaluate-automations: one job per ACTIVE automation (key: its id) due at its next run. The due
// jobs of one account are claimed together and evaluated together, so each window is read once per
// level for all of them; each is then due at its own next run.
//
// retry-automation-action: one job per failed action (key `<automationId>:<nodeId>`), tried again
// with the action's backoff (30 s, 2 min, 8 min), given up after the fourth attempt in
// automation.action_failed.

import type { JobContext, JobKind, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { ServiceError } from '../errors.js';
import { timeAutomationCycle } from '../observability/metrics.js';
import { actionRetry, evaluateAccount, giveUpAction, retryAction, type EngineDeps } from './engine.js';
import { nextRunAfter } from './schedule.js';
import { automationsByIds } from './store.js';
import { storedCanPublish } from '../workflows/publish-rule.js';
import { ACTION_JOB, AUTOMATION_JOB, laneOf } from './queue.js';

/** Due automations of one account evaluated together, at most. */
const BATCH = 1000;

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
    profit: { trackers: ctx.trackers, secrets: ctx.secrets, fxRates: ctx.config.fxRates },
  };
}

/** Evaluates the claimed due automations of one account; each job is due again at its automation's next run. */
async function evaluateBatch(ctx: JobContext, jobs: ClaimedJob[]): Promise<Map<number, JobNext | Error>> {
  const outcomes = new Map<number, JobNext | Error>(jobs.map((j) => [j.id, 'done']));
  const found = await automationsByIds(
    ctx.knex,
    jobs.map((j) => Number(j.key)),
  );
  // Only the ACTIVE automations of the lane's account run (a job whose automation went away ends).
  const lane = jobs[0].lane;
  const due = found.filter((a) => a.status === 'ACTIVE' && laneOf(a.brandId, a.accountId) === lane);
  if (!due.length) return outcomes;
  const { brandId, accountId } = due[0];
  let timezone: string;
  try {
    timezone = (await ctx.platforms.account(ctx.knex, brandId, accountId)).timezone;
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'not_found') return outcomes;
    throw err;
  }
  const now = ctx.now();
  // A run that fails (a platform read refused) throws: every job of the batch is retried by the queue.
  await timeAutomationCycle('schedule', () =>
    evaluateAccount(engineDeps(ctx), due, {
      trigger: 'schedule',
      act: true,
      // A scheduled run is caused by whoever last saved the automation.
      causePublish: (a) => storedCanPublish(ctx.knex, a.organizationId, a.savedBy, ctx.now()),
    }),
  );
  const jobOf = new Map(jobs.map((j) => [Number(j.key), j]));
  for (const a of due) outcomes.set(jobOf.get(a.id)!.id, nextRunAfter(a.frequency, a.dailyHour, now, timezone));
  return outcomes;
}

export const evaluateAutomations: JobKind = {
  kind: AUTOMATION_JOB,
  batch: BATCH,
  runBatch: evaluateBatch,
  async run(ctx, job) {
    const outcome = (await evaluateBatch(ctx, [job])).get(job.id) ?? 'done';
    if (outcome instanceof Error) throw outcome;
    return outcome;
  },
};

export const retryAutomationAction: JobKind = {
  kind: ACTION_JOB,
  run: (ctx, job) => retryAction(engineDeps(ctx), job),
  retry: actionRetry,
  onGiveUp: (ctx, job, error) => giveUpAction(engineDeps(ctx), job, error),
};
