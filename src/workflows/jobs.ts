// The workflows area's job kinds, thin adapters over its domain files.
//
// `run-workflow-step` runs the steps of one execution (key = the execution id), one node at a time,
// each recorded before and after it acts. A crash resumes at the node that was running (its
// operation is called again with the same Idempotency-Key, so it is replayed, not repeated). The
// run's credential is checked again before every step: if it no longer qualifies, the rest is
// refused. A review gate parks the job until a decision wakes it, or until its timeout. What to do
// next is decided by engine.ts; this file carries it out.
//
// `workflow-schedule` starts the run of a schedule trigger's time (key = the workflow id, due at
// that time; schedule.ts) and schedules the next time, in one transaction.

import type { JobContext, JobKind, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { nextStep, succeededResults } from './engine.js';
import { SCHEDULE_JOB, STEP_JOB } from './kinds.js';
import { causeHoldsPublish, needsPublishCause, principalForCause } from './publish-rule.js';
import { boundPlanOf, knownLaunchId, moneyStepAfter, planOfStep } from './plans.js';
import { principalOfRunner, runnerOfExecution, startTriggered } from './runs.js';
import { nextScheduledRun, scheduleRunAt, scheduledTimeOf } from './schedule.js';
import { runStep } from './steps.js';
import { postChat } from './chat.js';
import { operatorTarget } from '../outbound/address-policy.js';
import { nextRunOf } from './trigger.js';
import {
  FINAL_EXECUTION,
  awaitReview,
  endExecution,
  endNode,
  findExecution,
  lockWorkflow,
  nodeResultsOf,
  planOfResult,
  saveNodeProgress,
  setExecutionStatus,
  skipNode,
  startNode,
  timeOutReview,
  type Execution,
  type NodeResult,
  type StepError,
} from './store.js';

const FINAL: ReadonlySet<string> = new Set(FINAL_EXECUTION);

/** Ends the run (once) with the event that says so. */
async function finish(ctx: JobContext, exec: Execution, status: (typeof FINAL_EXECUTION)[number], error: StepError | null): Promise<void> {
  const now = ctx.now();
  await inTransaction(ctx.knex, async (trx) => {
    if (!(await endExecution(trx, exec.id, status, error, now))) return;
    await ctx.events.emit(trx, {
      organizationId: exec.organizationId,
      brandId: exec.brandId,
      type: 'workflow.execution.finished',
      data: { brandId: exec.brandId, workflowId: exec.workflowId, executionId: exec.id, status },
    });
  });
}

async function runSteps(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const id = Number(job.key);
  for (;;) {
    if (!ctx.stillOwned()) return ctx.now();
    const exec = await findExecution(ctx.knex, id);
    if (!exec || FINAL.has(exec.status)) return 'done';
    const results = await nodeResultsOf(ctx.knex, [id]);
    if (!results.length) return 'done';
    const now = ctx.now();
    const step = nextStep(exec.definition, results, now);
    for (const skipped of step.skip) await skipNode(ctx.knex, skipped.id, now);
    switch (step.kind) {
      case 'finish':
        await finish(ctx, exec, step.status, step.error);
        return 'done';
      case 'time_out':
        if (await timeOutReview(ctx.knex, step.result.id, step.nodeError, now)) await finish(ctx, exec, 'failed', step.error);
        continue;
      case 'park':
        // Parked until a decision wakes it (or the timeout).
        return step.until;
      case 'run':
        break;
    }
    const { node, result: r } = step;

    // The credential is checked again before every step: a revoked, expired or deleted key refuses the rest of the run.
    let principal;
    try {
      principal = await principalOfRunner(ctx.knex, exec.organizationId, runnerOfExecution(exec), now);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      await finish(ctx, exec, 'failed', { code: err.code, message: `Run refused: ${err.message}` });
      return 'done';
    }
    // A step that moves money runs only when the run's cause holds publish (publish-rule.ts): the run stops before it.
    if (needsPublishCause(node) && !causeHoldsPublish(exec.triggerKind, exec.triggerData, principal)) {
      const error = {
        code: 'publish_scope_missing',
        message: `Step ${node.nodeId} (${node.kind}) did not run: what started this ${exec.triggerKind} run does not hold the "publish" scope, so it moves no money.`,
      };
      await endNode(ctx.knex, r.id, { status: 'failed', result: null, error }, now);
      await finish(ctx, exec, 'failed', error);
      return 'done';
    }
    if (r.status === 'pending') {
      await startNode(ctx.knex, r.id, now);
      await setExecutionStatus(ctx.knex, exec.id, 'running', now);
    }
    const outcome = await runStep(
      {
        config: ctx.config,
        db: ctx.knex,
        principal: principalForCause(exec.triggerKind, exec.triggerData, principal),
        invoke: ctx.invoke,
        catalogue: ctx.catalogue,
        schemas: ctx.schemas,
        executionId: id,
        brandId: exec.brandId,
        workflowName: exec.definition.workflowName,
        triggerData: exec.triggerData,
        results: succeededResults(results),
        approvedPlan: approvedPlanOf(exec, results, node.nodeId),
        saved: r.status === 'running' ? r.result : null,
        saveProgress: (result) => saveNodeProgress(ctx.knex, r.id, result),
        attempts: job.attempts,
        now: ctx.now,
        outbound: ctx.outbound,
      },
      node,
    );
    const at = ctx.now();
    switch (outcome.status) {
      case 'retry':
        // Thrown, so the queue retries with backoff; the node stays running and resumes with the same keys.
        throw new Error(`workflow step ${node.nodeId} of execution ${id}: ${outcome.reason}`);
      case 'waiting_review': {
        // What the reviewer approves is the plan of the money step that follows, as it stands now.
        const step = moneyStepAfter(exec.definition, node.nodeId);
        const plan = step
          ? await planOfStep(
              {
                principal,
                db: ctx.knex,
                now: ctx.now,
                requestId: `wfx_${id}_${node.nodeId}`,
                log: ctx.log,
                platforms: ctx.platforms,
                config: ctx.config,
                trackers: ctx.trackers,
              },
              exec.brandId,
              step,
              knownLaunchId(step.settings.launchId, exec.triggerData, succeededResults(results)),
              at,
            )
          : null;
        await inTransaction(ctx.knex, async (trx) => {
          await awaitReview(trx, r.id, outcome.deadline, plan as Record<string, unknown> | null);
          await setExecutionStatus(trx, exec.id, 'waiting_review', at);
          await ctx.events.emit(trx, {
            organizationId: exec.organizationId,
            brandId: exec.brandId,
            type: 'workflow.review.requested',
            data: { brandId: exec.brandId, workflowId: exec.workflowId, executionId: exec.id, nodeId: node.nodeId },
          });
        });
        continue;
      }
      case 'succeeded':
        await endNode(ctx.knex, r.id, { status: 'succeeded', result: outcome.result }, at);
        continue;
      case 'failed':
        await endNode(ctx.knex, r.id, { status: 'failed', result: outcome.result ?? null, error: outcome.error }, at);
        if (outcome.error.code === 'stale_read') await boundPlanStale(ctx, exec, node.nodeId, outcome.error.message);
        await finish(ctx, exec, 'failed', { code: outcome.error.code, message: `Step ${node.nodeId} failed: ${outcome.error.message}` });
        return 'done';
    }
  }
}

/**
 * The plan fingerprint step `stepNodeId` publishes, when one was approved for it: the latest approved
 * review gate's recorded plan, else the plan the run was started with (run-workflow planFingerprint).
 */
function approvedPlanOf(exec: Execution, results: NodeResult[], stepNodeId: string): string | undefined {
  // A run acts only on the plan bound when it started (by arming, for a triggered run; at run-workflow, for a manual one).
  let approved: string | undefined = boundPlanOf(exec.triggerData.boundPlans, stepNodeId)?.planFingerprint ?? undefined;
  const confirmed = exec.triggerData.confirmedPlan as { stepNodeId?: unknown; planFingerprint?: unknown } | undefined;
  if (confirmed?.stepNodeId === stepNodeId && typeof confirmed.planFingerprint === 'string') approved = confirmed.planFingerprint;
  for (const r of [...results].sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0))) {
    const plan = r.status === 'succeeded' ? planOfResult(r) : null;
    if (plan?.stepNodeId === stepNodeId && typeof plan.planFingerprint === 'string') approved = plan.planFingerprint;
  }
  return approved;
}

/**
 * A money step of a triggered run whose plan is no longer the one arming bound stopped with
 * stale_read (nothing published): the workflow.failed event and, with CHAT_WEBHOOK_URL, a chat
 * notice say so. The workflow stays armed for the plans that still match.
 */
async function boundPlanStale(ctx: JobContext, exec: Execution, nodeId: string, message: string): Promise<void> {
  const bound = boundPlanOf(exec.triggerData.boundPlans, nodeId);
  // A run started by hand answers its starter in its record; a triggered one has nobody watching, so it says so.
  if (!bound || exec.triggerKind === 'manual') return;
  const said =
    `Workflow "${exec.definition.workflowName}" (#${exec.workflowId}), run ${exec.id} (${exec.triggerKind}): step ${nodeId} did not run, ` +
    `because launch ${bound.launchId} is no longer the plan bound when the workflow was armed; nothing was published. ` +
    'Look at the launch and activate the workflow again to bind its plan now.';
  await inTransaction(ctx.knex, async (trx) => {
    await ctx.events.emit(trx, {
      organizationId: exec.organizationId,
      brandId: exec.brandId,
      type: 'workflow.failed',
      data: {
        brandId: exec.brandId,
        workflowId: exec.workflowId,
        executionId: exec.id,
        nodeId,
        launchId: bound.launchId,
        code: 'stale_read',
        message: `${said} ${message}`.slice(0, 2000),
      },
    });
  });
  if (!ctx.config.chatWebhookUrl) return;
  const sent = await postChat(ctx.outbound, operatorTarget(ctx.config.chatWebhookUrl), said, `workflow-stale-${exec.id}-${nodeId}`);
  if (sent.statusCode === null || sent.statusCode >= 300)
    ctx.log.warn({ executionId: exec.id, statusCode: sent.statusCode, err: sent.error }, 'workflow notice not delivered');
}

export const stepJob: JobKind = { kind: STEP_JOB, run: runSteps };

/**
 * Starts the run of the scheduled time the job is for, once (the start is unique per workflow and
 * time), and makes the job due at the next time. The workflow row is locked first, so a save,
 * deactivation or deletion either comes before (and the job sees it) or waits for this to commit.
 */
async function startScheduledRun(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  return inTransaction(ctx.knex, async (trx) => {
    const w = await lockWorkflow(trx, Number(job.key));
    if (!w || w.status !== 'active' || w.trigger.kind !== 'schedule') return 'done';
    // Saved or re-armed since this job was claimed: the time that change gave stands (none: canceled).
    const due = await nextScheduledRun(trx, w.id);
    const at = scheduledTimeOf(job) ?? due;
    if (due === null || at !== due) return due ?? 'done';
    const now = ctx.now();
    const next = nextRunOf(w.trigger, w.status, now);
    if (next !== null) await scheduleRunAt(trx, w.id, next, now);
    await startTriggered(trx, w, { kind: 'schedule', key: `schedule:${at}`, data: { scheduledFor: new Date(at).toISOString() } }, now, ctx.events);
    return next ?? 'done';
  });
}

export const scheduleTriggerJob: JobKind = { kind: SCHEDULE_JOB, run: startScheduledRun };
