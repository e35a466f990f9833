// The shapes the workflow operations answer with: a workflow's summary and whole view, and runs
// with the status, result and error of every node of the definition they started with.

import type { Knex } from 'knex';
import { nodeResultsOf, planOfResult, runningWorkflows, type Execution, type Workflow } from './store.js';

type Db = Knex | Knex.Transaction;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function summaryOf(w: Workflow, running: boolean) {
  return {
    workflowId: w.id,
    workflowName: w.name,
    type: w.type,
    status: w.status,
    runCount: w.runCount,
    isRunning: running,
    lastRunAt: iso(w.lastRunAt),
    brandId: w.brandId,
    triggerKind: w.triggerKind,
    version: w.version,
    createdAt: new Date(w.createdAt).toISOString(),
    updatedAt: new Date(w.updatedAt).toISOString(),
  };
}

export async function summaryViews(db: Db, workflows: Workflow[]) {
  const running = await runningWorkflows(
    db,
    workflows.map((w) => w.id),
  );
  return workflows.map((w) => summaryOf(w, running.has(w.id)));
}

/** The whole workflow; `secret` only in the answer that made the hook. */
export async function workflowView(db: Db, w: Workflow, baseUrl: string, secret?: string) {
  const running = await runningWorkflows(db, [w.id]);
  return {
    ...summaryOf(w, running.has(w.id)),
    trigger: w.trigger,
    nodes: w.nodes.map((n) => ({ nodeId: n.nodeId, kind: n.kind, name: n.name ?? n.nodeId, settings: n.settings })),
    edges: w.edges,
    reachBrandIds: w.reachBrandIds,
    runsAs: w.ownerLabel,
    hook: w.hookId ? { hookId: w.hookId, url: `${baseUrl}/v1/workflow-hooks/${w.hookId}`, ...(secret ? { secret } : {}) } : null,
    boundPlans: w.status === 'active' ? (w.boundPlans ?? []) : [],
  };
}

/** Executions with their node results, in the order of the run's definition. */
export async function executionViews(db: Db, executions: Execution[]) {
  const results = await nodeResultsOf(
    db,
    executions.map((e) => e.id),
  );
  return executions.map((e) => {
    const mine = new Map(results.filter((x) => x.executionId === e.id).map((x) => [x.nodeId, x]));
    return {
      executionId: e.id,
      workflowId: e.workflowId,
      brandId: e.brandId,
      status: e.status,
      trigger: { kind: e.triggerKind, ...e.triggerData },
      runsAs: e.runnerLabel,
      startedAt: new Date(e.startedAt).toISOString(),
      finishedAt: iso(e.finishedAt),
      error: e.error,
      nodes: e.definition.nodes.map((n) => {
        const x = mine.get(n.nodeId);
        // A review gate's recorded plan is shown as its own field, not as part of its decision.
        const review = n.kind === 'review';
        const { plan: _plan, ...decision } = (review && x?.result) || {};
        return {
          nodeId: n.nodeId,
          kind: n.kind,
          status: x?.status ?? 'pending',
          result: review ? (Object.keys(decision).length ? decision : null) : (x?.result ?? null),
          error: x?.error ?? null,
          startedAt: iso(x?.startedAt ?? null),
          finishedAt: iso(x?.finishedAt ?? null),
          ...(review ? { plan: x ? planOfResult(x) : null } : {}),
        };
      }),
    };
  });
}
