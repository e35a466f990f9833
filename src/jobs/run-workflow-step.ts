// Job: runs the steps of one workflow execution (key = execution id), one node at a time, each
// recorded before and after it acts. A crash resumes at the node that was running (its operation
// is called again with the same Idempotency-Key, so it is replayed, not repeated). The run's
// credential is checked again before every step: if it no longer qualifies, the rest is refused.
// A review gate parks the job until a decision wakes it, or until its timeout.

import type { Knex } from 'knex';
import type { JobContext, JobNext } from './kind.js';
import type { ClaimedJob } from './queue/job.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { topological, type Definition, type WorkflowNode } from '../workflows/definition.js';
import { principalOfRunner, runnerOfExecution } from '../workflows/runs.js';
import { runStep } from '../workflows/steps.js';
import { STEP_JOB, type ExecutionRow, type NodeResultRow } from '../workflows/store.js';

export const kind = STEP_JOB;

const FINAL = new Set(['succeeded', 'failed', 'canceled']);

type Results = Map<string, NodeResultRow>;

async function load(knex: Knex, id: number): Promise<{ exec: ExecutionRow | undefined; results: Results }> {
  const exec = (await knex('workflow_executions').where({ id }).first()) as ExecutionRow | undefined;
  const rows: NodeResultRow[] = exec ? await knex('workflow_node_results').where({ execution_id: id }) : [];
  return { exec, results: new Map(rows.map((r) => [r.node_id, r])) };
}

/** The next node to run, after marking the nodes no followed edge leads to as skipped; null when none is left. */
async function nextNode(knex: Knex, def: Definition, results: Results, now: number): Promise<WorkflowNode | null> {
  const parse = (r: NodeResultRow | undefined) => (r?.result ? JSON.parse(r.result) : null);
  for (const node of topological(def)) {
    const r = results.get(node.nodeId)!;
    if (r.status === 'running' || r.status === 'waiting_review') return node;
    if (r.status !== 'pending') continue;
    const incoming = def.edges.filter((e) => e.to === node.nodeId);
    if (!incoming.length) return node;
    const sources = incoming.map((e) => ({ e, r: results.get(e.from)!, kind: def.nodes.find((n) => n.nodeId === e.from)!.kind }));
    if (sources.some((x) => x.r.status !== 'succeeded' && x.r.status !== 'skipped')) continue;
    const followed = sources.some((x) => x.r.status === 'succeeded' && (x.kind !== 'condition' || parse(x.r)?.value === x.e.when));
    if (followed) return node;
    await knex('workflow_node_results').where({ id: r.id }).update({ status: 'skipped', finished_at: now });
    r.status = 'skipped';
  }
  return null;
}

async function finish(
  ctx: JobContext,
  exec: ExecutionRow,
  status: 'succeeded' | 'failed' | 'canceled',
  error: { code: string; message: string } | null,
): Promise<void> {
  const now = ctx.now();
  await inTransaction(ctx.knex, async (trx) => {
    const n = await trx('workflow_executions')
      .where({ id: exec.id })
      .whereNotIn('status', [...FINAL])
      .update({ status, error: error ? JSON.stringify(error) : null, finished_at: now, updated_at: now });
    if (n !== 1) return;
    await trx('workflow_node_results')
      .where({ execution_id: exec.id })
      .whereIn('status', ['pending', 'running', 'waiting_review'])
      .update({ status: 'canceled', finished_at: now });
    await ctx.events.emit(trx, {
      organizationId: Number(exec.organization_id),
      brandId: Number(exec.brand_id),
      type: 'workflow.execution.finished',
      data: { brandId: Number(exec.brand_id), workflowId: Number(exec.workflow_id), executionId: Number(exec.id), status },
    });
  });
}

export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const id = Number(job.key);
  for (;;) {
    if (!ctx.stillOwned()) return ctx.now();
    const { exec, results } = await load(ctx.knex, id);
    if (!exec || FINAL.has(exec.status)) return 'done';
    const def = JSON.parse(exec.definition) as Definition;
    if (!results.size) return 'done';

    const rejected = [...results.values()].find((r) => r.status === 'rejected');
    if (rejected) {
      await finish(ctx, exec, 'canceled', { code: 'review_rejected', message: `Review ${rejected.node_id} was rejected.` });
      return 'done';
    }
    const node = await nextNode(ctx.knex, def, results, ctx.now());
    if (!node) {
      await finish(ctx, exec, 'succeeded', null);
      return 'done';
    }
    const r = results.get(node.nodeId)!;
    const now = ctx.now();
    if (r.status === 'waiting_review') {
      if (r.deadline_at !== null && Number(r.deadline_at) <= now) {
        const n = await ctx
          .knex('workflow_node_results')
          .where({ id: r.id, status: 'waiting_review' })
          .update({
            status: 'timed_out',
            error: JSON.stringify({ code: 'timeout', message: 'Nobody decided before the review timed out.' }),
            finished_at: now,
          });
        if (n === 1) await finish(ctx, exec, 'failed', { code: 'review_timed_out', message: `Review ${node.nodeId} timed out.` });
        continue;
      }
      // Parked until a decision wakes it (or the timeout).
      return r.deadline_at === null ? null : Number(r.deadline_at);
    }

    // The credential is checked again before every step: a revoked, expired or deleted key refuses the rest of the run.
    let principal;
    try {
      principal = await principalOfRunner(ctx.knex, Number(exec.organization_id), runnerOfExecution(exec), now);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      await finish(ctx, exec, 'failed', { code: err.code, message: `Run refused: ${err.message}` });
      return 'done';
    }
    if (r.status === 'pending') {
      await ctx.knex('workflow_node_results').where({ id: r.id }).update({ status: 'running', started_at: now });
      await ctx
        .knex('workflow_executions')
        .where({ id: exec.id })
        .whereNotIn('status', [...FINAL])
        .update({ status: 'running', updated_at: now });
    }
    const finished = new Map(
      [...results.values()]
        .filter((x) => x.status === 'succeeded')
        .map((x) => [x.node_id, { status: x.status, result: x.result ? JSON.parse(x.result) : null }]),
    );
    const outcome = await runStep(
      {
        config: ctx.config,
        db: ctx.knex,
        principal,
        invoke: ctx.invoke,
        catalogue: ctx.catalogue,
        schemas: ctx.schemas,
        executionId: id,
        brandId: Number(exec.brand_id),
        workflowName: def.workflowName,
        triggerData: exec.trigger_data ? JSON.parse(exec.trigger_data) : {},
        results: finished,
        saved: r.status === 'running' && r.result ? JSON.parse(r.result) : null,
        saveProgress: async (result) => {
          await ctx
            .knex('workflow_node_results')
            .where({ id: r.id })
            .update({ result: JSON.stringify(result) });
        },
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
      case 'waiting_review':
        await inTransaction(ctx.knex, async (trx) => {
          await trx('workflow_node_results').where({ id: r.id }).update({ status: 'waiting_review', deadline_at: outcome.deadline });
          await trx('workflow_executions').where({ id: exec.id }).update({ status: 'waiting_review', updated_at: at });
          await ctx.events.emit(trx, {
            organizationId: Number(exec.organization_id),
            brandId: Number(exec.brand_id),
            type: 'workflow.review.requested',
            data: { brandId: Number(exec.brand_id), workflowId: Number(exec.workflow_id), executionId: Number(exec.id), nodeId: node.nodeId },
          });
        });
        continue;
      case 'succeeded':
        await ctx
          .knex('workflow_node_results')
          .where({ id: r.id })
          .update({ status: 'succeeded', result: JSON.stringify(outcome.result), error: null, finished_at: at });
        continue;
      case 'failed':
        await ctx
          .knex('workflow_node_results')
          .where({ id: r.id })
          .update({ status: 'failed', result: outcome.result ? JSON.stringify(outcome.result) : null, error: JSON.stringify(outcome.error), finished_at: at });
        await finish(ctx, exec, 'failed', { code: outcome.error.code, message: `Step ${node.nodeId} failed: ${outcome.error.message}` });
        return 'done';
    }
  }
}
