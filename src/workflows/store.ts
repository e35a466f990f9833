// The workflows area's tables: `workflows` (definitions and their triggers; a schedule's next time
// is its job, schedule.ts), `workflow_executions` (runs, each with the definition it started with)
// and `workflow_node_results` (one row per node of a run). The only file that queries them; it
// answers camelCase rows with the JSON columns parsed, and hides the columns.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { isUniqueViolation } from '../db/connection.js';
import { notFound } from '../errors.js';
import type { Trigger, WorkflowEdge, WorkflowNode } from './definition.js';

type Db = Knex | Knex.Transaction;

/** Execution statuses of a run that has not ended. */
export const LIVE_EXECUTION = ['queued', 'running', 'waiting_review'] as const;
/** Execution statuses of a run that ended. */
export const FINAL_EXECUTION = ['succeeded', 'failed', 'canceled'] as const;

export type ExecutionStatus = (typeof LIVE_EXECUTION)[number] | (typeof FINAL_EXECUTION)[number];
export type CredentialKind = 'api_key' | 'user';

export interface Workflow {
  id: number;
  organizationId: number;
  brandId: number;
  name: string;
  type: string;
  status: 'inactive' | 'active';
  triggerKind: Trigger['kind'];
  trigger: Trigger;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Every brand the trigger and steps reach: a brand-limited key sees the workflow only when it covers them all. */
  reachBrandIds: number[];
  acts: boolean;
  createdByKind: CredentialKind;
  /** The credential trigger-started runs act as: the last saver's key or OAuth grant. */
  ownerKind: CredentialKind;
  ownerApiKeyId: number | null;
  ownerGrantId: number | null;
  ownerLabel: string;
  version: number;
  hookId: string | null;
  hookSecretSealed: string | null;
  /** When the trigger was last armed: events from before it start nothing. */
  armedAt: number | null;
  /** What arming bound each launch and budget step to (null: armed before plans were bound, or never armed). */
  boundPlans: BoundPlan[] | null;
  runCount: number;
  lastRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What a money step was bound to when its workflow was armed: the launch's planFingerprint (a budget
 * step: its live change's), and the amounts per ad account. planFingerprint is null when the step's
 * launch is named only when a run starts (the trigger's launch, an earlier step's): nothing to bind.
 */
export interface BoundPlan {
  nodeId: string;
  launchId: string | null;
  planFingerprint: string | null;
  amounts: Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number }>;
}

/** The definition a run keeps: later saves of its workflow do not change it. */
export interface RunDefinition {
  workflowName: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

export interface StepError {
  code: string;
  message: string;
  details?: unknown;
}

export interface Execution {
  id: number;
  organizationId: number;
  brandId: number;
  workflowId: number;
  status: ExecutionStatus;
  triggerKind: string;
  /** What started it (an event, a schedule time, a hook message), unique per workflow; null for manual runs. */
  triggerKey: string | null;
  triggerData: Record<string, unknown>;
  runnerKind: CredentialKind;
  runnerApiKeyId: number | null;
  runnerGrantId: number | null;
  /** The person who started it (or created its key); 0 or null when unknown. */
  runnerUserId: number | null;
  runnerLabel: string;
  definition: RunDefinition;
  error: StepError | null;
  startedAt: number;
  finishedAt: number | null;
}

export type NodeStatus = 'pending' | 'running' | 'waiting_review' | 'succeeded' | 'failed' | 'skipped' | 'canceled' | 'rejected' | 'timed_out';

export interface NodeResult {
  id: number;
  executionId: number;
  nodeId: string;
  status: NodeStatus;
  result: Record<string, any> | null;
  error: StepError | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** When a waiting review gate times out (null: never). */
  deadlineAt: number | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const parsed = <T>(s: string | null | undefined): T | null => (s === null || s === undefined ? null : (JSON.parse(s) as T));

function toWorkflow(r: Record<string, any>): Workflow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    name: r.name,
    type: r.type,
    status: r.status,
    triggerKind: r.trigger_kind,
    trigger: JSON.parse(r.trigger) as Trigger,
    nodes: JSON.parse(r.nodes) as WorkflowNode[],
    edges: JSON.parse(r.edges) as WorkflowEdge[],
    reachBrandIds: JSON.parse(r.reach_brand_ids) as number[],
    acts: Boolean(r.acts),
    createdByKind: r.created_by_kind,
    ownerKind: r.owner_kind,
    ownerApiKeyId: num(r.owner_api_key_id),
    ownerGrantId: num(r.owner_grant_id),
    ownerLabel: r.owner_label,
    version: Number(r.version),
    hookId: r.hook_id ?? null,
    hookSecretSealed: r.hook_secret_sealed ?? null,
    armedAt: num(r.armed_at),
    boundPlans: r.bound_plans ? (JSON.parse(r.bound_plans) as BoundPlan[]) : null,
    runCount: Number(r.run_count),
    lastRunAt: num(r.last_run_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toExecution(r: Record<string, any>): Execution {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    workflowId: Number(r.workflow_id),
    status: r.status,
    triggerKind: r.trigger_kind,
    triggerKey: r.trigger_key ?? null,
    triggerData: parsed<Record<string, unknown>>(r.trigger_data) ?? {},
    runnerKind: r.runner_kind,
    runnerApiKeyId: num(r.runner_api_key_id),
    runnerGrantId: num(r.runner_grant_id),
    runnerUserId: num(r.runner_user_id),
    runnerLabel: r.runner_label,
    definition: JSON.parse(r.definition) as RunDefinition,
    error: parsed<StepError>(r.error),
    startedAt: Number(r.started_at),
    finishedAt: num(r.finished_at),
  };
}

function toNodeResult(r: Record<string, any>): NodeResult {
  return {
    id: Number(r.id),
    executionId: Number(r.execution_id),
    nodeId: r.node_id,
    status: r.status,
    result: parsed<Record<string, any>>(r.result),
    error: parsed<StepError>(r.error),
    startedAt: num(r.started_at),
    finishedAt: num(r.finished_at),
    deadlineAt: num(r.deadline_at),
  };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** True when the credential's brand limit covers every brand the workflow reaches. */
export function reachable(principal: Pick<Principal, 'brandIds'>, reach: number[]): boolean {
  const limit = principal.brandIds;
  return limit === null || reach.every((b) => limit.has(b));
}

// ---- workflows

/** What a save writes: the definition, who runs it, and the hook (undefined: leave it as it is). */
export interface DefinitionFields {
  trigger: Trigger;
  name: string;
  type: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  reachBrandIds: number[];
  acts: boolean;
  owner: { kind: CredentialKind; apiKeyId: number | null; grantId: number | null; label: string };
  hook?: { id: string; secretSealed: string } | null;
}

function definitionColumns(d: DefinitionFields) {
  const t = d.trigger;
  return {
    name: d.name,
    type: d.type,
    trigger_kind: t.kind,
    trigger: JSON.stringify(t),
    trigger_column_id: t.kind === 'pipeline_stage' ? t.columnId : null,
    trigger_automation_id: t.kind === 'monitor' ? t.automationId : null,
    nodes: JSON.stringify(d.nodes),
    edges: JSON.stringify(d.edges),
    reach_brand_ids: JSON.stringify(d.reachBrandIds),
    acts: d.acts,
    owner_kind: d.owner.kind,
    owner_api_key_id: d.owner.apiKeyId,
    owner_grant_id: d.owner.grantId,
    owner_label: d.owner.label,
    ...(d.hook === undefined ? {} : { hook_id: d.hook?.id ?? null, hook_secret_sealed: d.hook?.secretSealed ?? null }),
  };
}

/** Stores a new inactive workflow (version 1, no runs); answers its id. */
export async function insertWorkflow(
  db: Db,
  w: DefinitionFields & { organizationId: number; brandId: number; createdByKind: CredentialKind; status: 'inactive'; now: number },
): Promise<number> {
  const [id] = await db('workflows').insert({
    organization_id: w.organizationId,
    brand_id: w.brandId,
    status: w.status,
    ...definitionColumns(w),
    created_by_kind: w.createdByKind,
    version: 1,
    run_count: 0,
    created_at: w.now,
    updated_at: w.now,
  });
  return Number(id);
}

/** The workflow `id`, whoever may see it; undefined when it is gone. */
export async function findWorkflow(db: Db, id: number): Promise<Workflow | undefined> {
  const row = await db('workflows').where({ id }).first();
  return row ? toWorkflow(row) : undefined;
}

/** The workflow `id` locked for the rest of the transaction (whoever may see it); undefined when it is gone. */
export async function lockWorkflow(db: Db, id: number): Promise<Workflow | undefined> {
  const row = await db('workflows').where({ id }).forUpdate().first();
  return row ? toWorkflow(row) : undefined;
}

/** The workflow `workflowId` of `brandId` as `principal` may see it (locked in a transaction when `lock`); 404 otherwise. */
export async function loadWorkflow(db: Db, principal: Principal, brandId: number, workflowId: number, lock = false): Promise<Workflow> {
  const q = db('workflows').where({ id: workflowId, organization_id: principal.organizationId, brand_id: brandId }).first();
  const row = await (lock ? q.forUpdate() : q);
  const w = row ? toWorkflow(row) : undefined;
  if (!w || !reachable(principal, w.reachBrandIds)) throw notFound(`Workflow ${workflowId} of brand ${brandId}`);
  return w;
}

/** A brand's workflows, newest first, below `beforeId` (all of them, whoever may see them). */
export async function workflowsOfBrand(db: Db, organizationId: number, brandId: number, beforeId: number | null, limit: number): Promise<Workflow[]> {
  const rows = await db('workflows')
    .where({ organization_id: organizationId, brand_id: brandId })
    .modify((q) => (beforeId !== null ? q.where('id', '<', beforeId) : q))
    .orderBy('id', 'desc')
    .limit(limit);
  return rows.map(toWorkflow);
}

/** The workflow of a video-review hook id, or undefined. */
export async function workflowOfHook(db: Db, hookId: string): Promise<Workflow | undefined> {
  const row = await db('workflows').where({ hook_id: hookId }).first();
  return row ? toWorkflow(row) : undefined;
}

/**
 * Saves a definition over version `version` (which becomes version + 1), in one conditional
 * statement: 1 when it did, 0 when another save came first.
 */
export async function saveDefinition(
  db: Db,
  id: number,
  version: number,
  d: DefinitionFields & { armedAt: number | null; boundPlans: BoundPlan[] | null; now: number },
): Promise<number> {
  return db('workflows')
    .where({ id, version })
    .update({ ...definitionColumns(d), armed_at: d.armedAt, bound_plans: boundColumn(d.boundPlans), version: version + 1, updated_at: d.now });
}

/** Arms or disarms the trigger: status, and when it was armed. */
export async function setWorkflowStatus(
  db: Db,
  id: number,
  change: { status: Workflow['status']; armedAt: number | null; boundPlans: BoundPlan[] | null; now: number },
): Promise<void> {
  await db('workflows')
    .where({ id })
    .update({ status: change.status, armed_at: change.armedAt, bound_plans: boundColumn(change.boundPlans), updated_at: change.now });
}

function boundColumn(plans: BoundPlan[] | null): string | null {
  return plans === null ? null : JSON.stringify(plans);
}

/** Counts a run started at `at`. */
async function countRun(db: Db, workflowId: number, at: number): Promise<void> {
  await db('workflows')
    .where({ id: workflowId })
    .update({ run_count: db.raw('run_count + 1'), last_run_at: at });
}

/** Deletes a workflow with its executions and their node results; answers the ids of the executions deleted. */
export async function deleteWorkflowRows(db: Db, id: number): Promise<number[]> {
  const execIds = (await db('workflow_executions').where({ workflow_id: id }).pluck('id')).map(Number);
  if (execIds.length) {
    await db('workflow_node_results').whereIn('execution_id', execIds).delete();
    await db('workflow_executions').whereIn('id', execIds).delete();
  }
  await db('workflows').where({ id }).delete();
  return execIds;
}

// ---- triggers

/**
 * Active monitor workflows watching any of `automationIds`, armed at or before `at` (one read for a
 * batch of events; each event then keeps those of its organization, brand and time), by id.
 */
export async function monitorWorkflowsOf(db: Db, automationIds: number[], at: number): Promise<Array<{ automationId: number; workflow: Workflow }>> {
  if (!automationIds.length) return [];
  const rows = await db('workflows')
    .where({ status: 'active', trigger_kind: 'monitor' })
    .whereIn('trigger_automation_id', automationIds)
    .where('armed_at', '<=', at)
    .orderBy('id');
  return rows.map((r) => ({ automationId: Number(r.trigger_automation_id), workflow: toWorkflow(r) }));
}

/** Of `organizationIds`, those with an active monitor workflow (one read). */
export async function organizationsWithMonitors(db: Db, organizationIds: number[]): Promise<Set<number>> {
  if (!organizationIds.length) return new Set();
  const rows: Array<{ organization_id: number }> = await db('workflows')
    .where({ status: 'active', trigger_kind: 'monitor' })
    .whereIn('organization_id', organizationIds)
    .distinct('organization_id');
  return new Set(rows.map((r) => Number(r.organization_id)));
}

/** Active pipeline-stage workflows of a brand armed on `columnId` at or before `at`. */
export async function columnWorkflows(db: Db, organizationId: number, brandId: number | null, columnId: number, at: number): Promise<Workflow[]> {
  const rows = await db('workflows')
    .where({ organization_id: organizationId, status: 'active', trigger_kind: 'pipeline_stage', trigger_column_id: columnId, brand_id: brandId })
    .where('armed_at', '<=', at);
  return rows.map(toWorkflow);
}

/**
 * Every workflow a card entering `columnId` can start, whatever its status: the column's linked
 * workflow `linkedId` and those whose pipeline-stage trigger names the column (one read).
 */
export async function workflowsOfColumn(db: Db, organizationId: number, brandId: number, columnId: number, linkedId: number | null): Promise<Workflow[]> {
  const rows = await db('workflows')
    .where({ organization_id: organizationId, brand_id: brandId })
    .andWhere((q) => {
      q.where({ trigger_kind: 'pipeline_stage', trigger_column_id: columnId });
      if (linkedId !== null) q.orWhere({ id: linkedId });
    });
  return rows.map(toWorkflow);
}

/** The workflow `id` of the brand (whatever its status), or undefined. */
export async function workflowOfBrand(db: Db, organizationId: number, brandId: number | null, id: number): Promise<Workflow | undefined> {
  const row = await db('workflows').where({ organization_id: organizationId, id, brand_id: brandId }).first();
  return row ? toWorkflow(row) : undefined;
}

// ---- executions

/** The ids among `workflowIds` with a run under way. */
export async function runningWorkflows(db: Db, workflowIds: number[]): Promise<Set<number>> {
  if (!workflowIds.length) return new Set();
  const rows = await db('workflow_executions')
    .whereIn('workflow_id', workflowIds)
    .whereIn('status', [...LIVE_EXECUTION])
    .distinct('workflow_id');
  return new Set(rows.map((r: { workflow_id: number }) => Number(r.workflow_id)));
}

export interface NewExecution {
  workflow: Pick<Workflow, 'id' | 'organizationId' | 'brandId'>;
  status: 'queued' | 'failed';
  trigger: { kind: string; key: string | null; data: Record<string, unknown> };
  runner: { kind: CredentialKind; apiKeyId: number | null; grantId: number | null; userId: number | null; label: string };
  definition: RunDefinition;
  error: StepError | null;
  now: number;
}

/**
 * Records a run of a workflow with one result row per node (`nodeStatus`) and counts it on the
 * workflow, in the caller's transaction `trx`; answers null when its trigger key already started a
 * run of the workflow (inserted under a savepoint, so the caller's transaction stays usable).
 */
export async function insertExecution(trx: Db, e: NewExecution, nodeStatus: 'pending' | 'canceled'): Promise<Execution | null> {
  const row = {
    organization_id: e.workflow.organizationId,
    brand_id: e.workflow.brandId,
    workflow_id: e.workflow.id,
    status: e.status,
    trigger_kind: e.trigger.kind,
    trigger_key: e.trigger.key,
    trigger_data: JSON.stringify(e.trigger.data),
    runner_kind: e.runner.kind,
    runner_api_key_id: e.runner.apiKeyId,
    runner_grant_id: e.runner.grantId,
    runner_user_id: e.runner.userId,
    runner_label: e.runner.label,
    definition: JSON.stringify(e.definition),
    error: json(e.error),
    started_at: e.now,
    finished_at: e.status === 'failed' ? e.now : null,
    updated_at: e.now,
  };
  let id: number;
  try {
    id = await trx.transaction(async (sp) => Number((await sp('workflow_executions').insert(row))[0]));
  } catch (err) {
    if (e.trigger.key !== null && isUniqueViolation(err)) return null;
    throw err;
  }
  await trx('workflow_node_results').insert(e.definition.nodes.map((n) => ({ execution_id: id, node_id: n.nodeId, status: nodeStatus })));
  await countRun(trx, e.workflow.id, e.now);
  const stored = await findExecution(trx, id);
  if (!stored) throw new Error(`execution ${id} vanished in its own transaction`);
  return stored;
}

/** The execution `id`, or undefined when it is gone. */
export async function findExecution(db: Db, id: number): Promise<Execution | undefined> {
  const row = await db('workflow_executions').where({ id }).first();
  return row ? toExecution(row) : undefined;
}

/** The execution `executionId` of the workflow; 404 otherwise. */
export async function loadExecution(db: Db, workflowId: number, executionId: number): Promise<Execution> {
  const row = await db('workflow_executions').where({ id: executionId, workflow_id: workflowId }).first();
  if (!row) throw notFound(`Execution ${executionId} of workflow ${workflowId}`);
  return toExecution(row);
}

/** The run of the workflow its trigger key started, or undefined. */
export async function executionOfTrigger(db: Db, workflowId: number, triggerKey: string): Promise<Execution | undefined> {
  const row = await db('workflow_executions').where({ workflow_id: workflowId, trigger_key: triggerKey }).first();
  return row ? toExecution(row) : undefined;
}

/** A workflow's runs, newest first, below `beforeId`. */
export async function executionsOf(db: Db, workflowId: number, beforeId: number | undefined, limit: number): Promise<Execution[]> {
  const rows = await db('workflow_executions')
    .where({ workflow_id: workflowId })
    .modify((q) => (beforeId !== undefined ? q.where('id', '<', beforeId) : q))
    .orderBy('id', 'desc')
    .limit(limit);
  return rows.map(toExecution);
}

/** The runs of a brand of `organizationId` waiting at a review gate, newest first, below `beforeId`, each with its workflow. */
export async function waitingExecutionsOfBrand(
  db: Db,
  organizationId: number,
  brandId: number,
  beforeId: number | null,
  limit: number,
): Promise<Array<{ execution: Execution; workflow: Workflow }>> {
  const rows = await db('workflow_executions')
    .where({ organization_id: organizationId, brand_id: brandId, status: 'waiting_review' })
    .modify((q) => (beforeId !== null ? q.where('id', '<', beforeId) : q))
    .orderBy('id', 'desc')
    .limit(limit);
  if (!rows.length) return [];
  const executions: Execution[] = rows.map(toExecution);
  const ids = [...new Set(executions.map((e) => e.workflowId))];
  const workflows = new Map<number, Workflow>();
  for (const r of await db('workflows').whereIn('id', ids)) workflows.set(Number(r.id), toWorkflow(r));
  return executions.flatMap((execution) => {
    const workflow = workflows.get(execution.workflowId);
    return workflow ? [{ execution, workflow }] : [];
  });
}

/** Sets a run that has not ended to `status` (running, waiting_review). */
export async function setExecutionStatus(db: Db, id: number, status: 'running' | 'waiting_review', at: number): Promise<void> {
  await db('workflow_executions')
    .where({ id })
    .whereNotIn('status', [...FINAL_EXECUTION])
    .update({ status, updated_at: at });
}

/**
 * Ends a run that has not ended, in one conditional statement, and cancels its nodes still
 * pending, running or waiting: true when this call ended it.
 */
export async function endExecution(db: Db, id: number, status: (typeof FINAL_EXECUTION)[number], error: StepError | null, at: number): Promise<boolean> {
  const n = await db('workflow_executions')
    .where({ id })
    .whereNotIn('status', [...FINAL_EXECUTION])
    .update({ status, error: json(error), finished_at: at, updated_at: at });
  if (n !== 1) return false;
  await db('workflow_node_results')
    .where({ execution_id: id })
    .whereIn('status', ['pending', 'running', 'waiting_review'])
    .update({ status: 'canceled', finished_at: at });
  return true;
}

// ---- node results

/** The node results of the executions, in insertion order. */
export async function nodeResultsOf(db: Db, executionIds: number[]): Promise<NodeResult[]> {
  if (!executionIds.length) return [];
  const rows = await db('workflow_node_results').whereIn('execution_id', executionIds).orderBy('id');
  return rows.map(toNodeResult);
}

/** Marks a pending node skipped (no followed edge leads to it). */
export async function skipNode(db: Db, resultId: number, at: number): Promise<void> {
  await db('workflow_node_results').where({ id: resultId }).update({ status: 'skipped', finished_at: at });
}

/** Marks a node running. */
export async function startNode(db: Db, resultId: number, at: number): Promise<void> {
  await db('workflow_node_results').where({ id: resultId }).update({ status: 'running', started_at: at });
}

/** Saves what a running node did so far (the agent's transcript), for a resumed run. */
export async function saveNodeProgress(db: Db, resultId: number, result: Record<string, unknown>): Promise<void> {
  await db('workflow_node_results')
    .where({ id: resultId })
    .update({ result: JSON.stringify(result) });
}

/** Ends a node: succeeded (its result) or failed (its error, and what it did before failing). */
export async function endNode(
  db: Db,
  resultId: number,
  outcome: { status: 'succeeded'; result: Record<string, unknown> } | { status: 'failed'; result: Record<string, unknown> | null; error: StepError },
  at: number,
): Promise<void> {
  await db('workflow_node_results')
    .where({ id: resultId })
    .update({
      status: outcome.status,
      result: json(outcome.result),
      error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      finished_at: at,
    });
}

/**
 * Parks a node at its review gate until a decision or `deadline` (null: none), with the plan of the
 * money step that follows it (null: none), kept in its result as `plan` (planOfResult).
 */
export async function awaitReview(db: Db, resultId: number, deadline: number | null, plan: Record<string, unknown> | null): Promise<void> {
  await db('workflow_node_results')
    .where({ id: resultId })
    .update({ status: 'waiting_review', deadline_at: deadline, result: plan ? JSON.stringify({ plan }) : null });
}

/** The plan a review gate recorded (awaitReview, decideReview), or null. */
export function planOfResult(r: Pick<NodeResult, 'result'>): Record<string, any> | null {
  return (r.result?.plan as Record<string, any> | undefined) ?? null;
}

/**
 * Records the decision on a review gate that waits for one, in one conditional statement:
 * approved (succeeded) or rejected, with who decided and the plan it approved (null: none). 1 when
 * the gate was waiting, 0 otherwise.
 */
export async function decideReview(
  db: Db,
  executionId: number,
  nodeId: string,
  approved: boolean,
  decision: Record<string, unknown>,
  plan: Record<string, unknown> | null,
  at: number,
): Promise<number> {
  return db('workflow_node_results')
    .where({ execution_id: executionId, node_id: nodeId, status: 'waiting_review' })
    .update({
      status: approved ? 'succeeded' : 'rejected',
      result: JSON.stringify(plan ? { ...decision, plan } : decision),
      finished_at: at,
      deadline_at: null,
    });
}

/** Times out a review gate still waiting, in one conditional statement: true when this call did. */
export async function timeOutReview(db: Db, resultId: number, error: StepError, at: number): Promise<boolean> {
  const n = await db('workflow_node_results')
    .where({ id: resultId, status: 'waiting_review' })
    .update({ status: 'timed_out', error: JSON.stringify(error), finished_at: at });
  return n === 1;
}
