// Workflow rows and their views: loading a workflow the caller may see (a brand-limited key sees
// only workflows whose every reached brand is its own; any other answers 404), executions with
// their node results, and the shapes the operations answer with.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import type { Definition, Trigger, WorkflowEdge, WorkflowNode } from './definition.js';

type Db = Knex | Knex.Transaction;

export const LIVE_EXECUTION = ['queued', 'running', 'waiting_review'] as const;
export const STEP_JOB = 'run-workflow-step';

export interface WorkflowRow {
  id: number;
  organization_id: number;
  brand_id: number;
  name: string;
  type: string;
  status: 'inactive' | 'active';
  trigger_kind: string;
  trigger: string;
  nodes: string;
  edges: string;
  reach_brand_ids: string;
  acts: number | boolean;
  created_by_kind: 'api_key' | 'user';
  owner_kind: 'api_key' | 'user';
  owner_api_key_id: number | null;
  owner_grant_id: number | null;
  owner_label: string;
  version: number;
  hook_id: string | null;
  hook_secret_sealed: string | null;
  next_run_at: number | null;
  armed_at: number | null;
  run_count: number;
  last_run_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ExecutionRow {
  id: number;
  organization_id: number;
  brand_id: number;
  workflow_id: number;
  status: string;
  trigger_kind: string;
  trigger_key: string | null;
  trigger_data: string | null;
  runner_kind: 'api_key' | 'user';
  runner_api_key_id: number | null;
  runner_grant_id: number | null;
  runner_user_id: number | null;
  runner_label: string;
  definition: string;
  error: string | null;
  started_at: number;
  finished_at: number | null;
}

export interface NodeResultRow {
  id: number;
  execution_id: number;
  node_id: string;
  status: string;
  result: string | null;
  error: string | null;
  started_at: number | null;
  finished_at: number | null;
  deadline_at: number | null;
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const json = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

/** True when the credential's brand limit covers every brand the workflow reaches. */
export function reachable(principal: Principal, reach: number[]): boolean {
  return principal.brandIds === null || reach.every((b) => principal.brandIds!.has(b));
}

export function definitionOf(row: WorkflowRow): Definition {
  return {
    workflowName: row.name,
    type: row.type,
    trigger: JSON.parse(row.trigger) as Trigger,
    nodes: JSON.parse(row.nodes) as WorkflowNode[],
    edges: JSON.parse(row.edges) as WorkflowEdge[],
  };
}

/** The workflow `workflowId` of `brandId` as `principal` may see it; 404 otherwise. */
export async function loadWorkflow(db: Db, principal: Principal, brandId: number, workflowId: number, lock = false): Promise<WorkflowRow> {
  const q = db('workflows').where({ id: workflowId, organization_id: principal.organizationId, brand_id: brandId }).first();
  const row = (await (lock ? q.forUpdate() : q)) as WorkflowRow | undefined;
  if (!row || !reachable(principal, JSON.parse(row.reach_brand_ids))) throw notFound(`Workflow ${workflowId} of brand ${brandId}`);
  return row;
}

async function runningSet(db: Db, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db('workflow_executions')
    .whereIn('workflow_id', ids)
    .whereIn('status', [...LIVE_EXECUTION])
    .distinct('workflow_id');
  return new Set(rows.map((r: { workflow_id: number }) => Number(r.workflow_id)));
}

function summaryOf(row: WorkflowRow, running: boolean) {
  return {
    workflowId: Number(row.id),
    workflowName: row.name,
    type: row.type,
    status: row.status,
    runCount: Number(row.run_count),
    isRunning: running,
    lastRunAt: iso(row.last_run_at),
    brandId: Number(row.brand_id),
    triggerKind: row.trigger_kind,
    version: Number(row.version),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export async function summaryViews(db: Db, rows: WorkflowRow[]) {
  const running = await runningSet(
    db,
    rows.map((r) => Number(r.id)),
  );
  return rows.map((r) => summaryOf(r, running.has(Number(r.id))));
}

/** The whole workflow; `secret` only in the answer that made the hook. */
export async function workflowView(db: Db, row: WorkflowRow, baseUrl: string, secret?: string) {
  const running = await runningSet(db, [Number(row.id)]);
  const def = definitionOf(row);
  return {
    ...summaryOf(row, running.has(Number(row.id))),
    trigger: def.trigger,
    nodes: def.nodes.map((n) => ({ nodeId: n.nodeId, kind: n.kind, name: n.name ?? n.nodeId, settings: n.settings })),
    edges: def.edges,
    reachBrandIds: JSON.parse(row.reach_brand_ids) as number[],
    runsAs: row.owner_label,
    hook: row.hook_id ? { hookId: row.hook_id, url: `${baseUrl}/v1/workflow-hooks/${row.hook_id}`, ...(secret ? { secret } : {}) } : null,
  };
}

/** Executions with their node results, in the order of the run's definition. */
export async function executionViews(db: Db, rows: ExecutionRow[]) {
  const ids = rows.map((r) => Number(r.id));
  const results: NodeResultRow[] = ids.length ? await db('workflow_node_results').whereIn('execution_id', ids).orderBy('id') : [];
  return rows.map((r) => {
    const def = JSON.parse(r.definition) as Definition;
    const mine = new Map(results.filter((x) => Number(x.execution_id) === Number(r.id)).map((x) => [x.node_id, x]));
    return {
      executionId: Number(r.id),
      workflowId: Number(r.workflow_id),
      brandId: Number(r.brand_id),
      status: r.status,
      trigger: { kind: r.trigger_kind, ...(json<Record<string, unknown>>(r.trigger_data) ?? {}) },
      runsAs: r.runner_label,
      startedAt: iso(r.started_at)!,
      finishedAt: iso(r.finished_at),
      error: json(r.error),
      nodes: def.nodes.map((n) => {
        const x = mine.get(n.nodeId);
        return {
          nodeId: n.nodeId,
          kind: n.kind,
          status: x?.status ?? 'pending',
          result: json<Record<string, unknown>>(x?.result ?? null),
          error: json(x?.error ?? null),
          startedAt: iso(x?.started_at ?? null),
          finishedAt: iso(x?.finished_at ?? null),
        };
      }),
    };
  });
}

export async function loadExecution(db: Db, workflow: WorkflowRow, executionId: string): Promise<ExecutionRow> {
  const row = await db('workflow_executions')
    .where({ id: Number(executionId), workflow_id: workflow.id })
    .first();
  if (!row) throw notFound(`Execution ${executionId} of workflow ${workflow.id}`);
  return row as ExecutionRow;
}
