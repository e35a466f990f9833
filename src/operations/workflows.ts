// Workflows: create, list, read, save (version-guarded), activate and deactivate the trigger, run,
// list and read executions, approve or reject a review gate, delete. The steps themselves run in
// the `run-workflow-step` job, as the run's credential, through the same pipeline as a direct call.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { defineOperation, type OperationContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed, type FieldIssue } from '../errors.js';
import { nextCronTime } from '../jobs/worker.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { isKnownTimeZone } from '../time/zones.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import { checkChatUrls } from '../workflows/chat.js';
import { acts, checkDefinition, reachOf, type Definition, type Trigger } from '../workflows/definition.js';
import { requireReferences } from '../references/resolve.js';
import { definitionIssues } from '../workflows/references.js';
import { personOf, runnerOfPrincipal, startExecution } from '../workflows/runs.js';
import {
  STEP_JOB,
  executionViews,
  loadExecution,
  loadWorkflow,
  reachable,
  summaryViews,
  workflowView,
  type ExecutionRow,
  type WorkflowRow,
} from '../workflows/store.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

type DefinitionInput = Definition & { brandId: number };

const PERMISSIONS =
  'Saving, activating or running a workflow with a launch, pause, budget or agent step needs the publish scope (else 403 insufficient_scope, ' +
  'details.requiredScope publish). A brand-limited key sees only workflows whose every brand is its own (others answer 404) and cannot save ' +
  'a trigger or step reaching another brand (400 validation_failed on that field); it may save an agent step only in a workflow created with an API key (403 forbidden).';

const DEFINITION =
  'A definition is {workflowName, type, trigger, nodes[], edges[]}. trigger: {kind: manual} | {kind: schedule, cron, timezone} | ' +
  '{kind: pipeline_stage, columnId} | {kind: video_review} (an inbound endpoint; its Standard Webhooks secret is shown once) | ' +
  '{kind: monitor, automationId}. Nodes {nodeId, kind, name, settings}: apply_template {templateId}, launch {launchId}, pause {launchId, nodeId}, ' +
  'budget {launchId, nodeId, amount in cents}, review {timeoutHours?}, chat {message, webhookUrl?}, agent {instruction, brandIds?}, ' +
  'condition {source, path, equals} (its outgoing edges carry when: true or false). The first node is the entry; edges {from, to} must reach every ' +
  "node without cycles. Every id named must exist in its brand (the trigger's column or automation in the workflow's brand, a step's template, " +
  "launch and node in the step's brand) and be reachable by the credential; ids may be numbers or digit strings. Invalid definitions answer " +
  '400 validation_failed naming each field as nodes[<nodeId>].settings.<setting> or trigger.<field>, the same for a missing id as for one of ' +
  "another brand or organization. A run checks each step's references again when it runs.";

function requirePublish(ctx: OperationContext, def: Pick<Definition, 'nodes'>, what: string): void {
  if (acts(def) && !ctx.principal.scopes.has('publish')) {
    throw new ServiceError(
      'insufficient_scope',
      `${what} a workflow with a launch, pause, budget or agent step needs the "publish" scope; this credential has ${[...ctx.principal.scopes].join(', ') || 'none'}.`,
      { requiredScope: 'publish' },
    );
  }
}

function checkTrigger(t: Trigger & Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  const allowed: Record<string, string[]> = {
    manual: [],
    video_review: [],
    schedule: ['cron', 'timezone'],
    pipeline_stage: ['columnId'],
    monitor: ['automationId'],
  };
  for (const f of ['cron', 'timezone', 'columnId', 'automationId']) {
    const wanted = allowed[t.kind].includes(f);
    if (wanted && t[f] === undefined) issues.push({ field: `trigger.${f}`, code: 'invalid_type', message: `is required for a ${t.kind} trigger` });
    if (!wanted && t[f] !== undefined)
      issues.push({ field: `trigger.${f}`, code: 'unrecognized_key', message: `is not part of a ${t.kind} trigger; remove it` });
  }
  if (t.kind === 'schedule' && typeof t.timezone === 'string' && !isKnownTimeZone(t.timezone)) {
    issues.push({ field: 'trigger.timezone', code: 'invalid_value', message: `"${t.timezone}" is not an IANA time zone such as Europe/Paris` });
  }
  if (t.kind === 'schedule' && typeof t.cron === 'string') {
    if (t.cron.trim().split(/\s+/).length !== 5)
      issues.push({ field: 'trigger.cron', code: 'invalid_value', message: 'must have five fields: minute hour day-of-month month day-of-week' });
    else {
      try {
        nextCronTime(t.cron, Date.now(), 'UTC');
      } catch (err) {
        issues.push({ field: 'trigger.cron', code: 'invalid_value', message: `is not a valid cron expression (${(err as Error).message})` });
      }
    }
  }
  if (issues.length) throw validationFailed(issues);
}

/** Every check of a definition about to be stored: shape, scope, brands, the agent rule. */
async function checkSave(ctx: OperationContext, def: Definition, createdByKind: 'api_key' | 'user'): Promise<number[]> {
  checkTrigger(def.trigger as Trigger & Record<string, unknown>);
  checkDefinition(ctx, def, ctx.config);
  await checkChatUrls(ctx.outbound, def.nodes);
  requirePublish(ctx, def, 'Saving');
  // Every id the trigger and the steps name must exist in its brand and be within this credential's reach.
  const issues = await definitionIssues(ctx, ctx.brand!.id, def);
  if (issues.length) throw validationFailed(issues, `Workflow definition is invalid: ${issues.length} issues.`);
  const reach = reachOf(ctx.brand!.id, def);
  const limitedKey = ctx.principal.kind === 'api_key' && ctx.principal.brandIds !== null;
  if (limitedKey && createdByKind === 'user' && def.nodes.some((n) => n.kind === 'agent')) {
    throw new ServiceError(
      'forbidden',
      'A brand-limited API key may save an agent step only in a workflow created with an API key; this one belongs to a person.',
      null,
    );
  }
  return reach;
}

/** Columns describing the trigger (and when it was armed) for a definition in `status`. */
function triggerColumns(def: Definition, status: string, now: number) {
  const t = def.trigger as Trigger & Record<string, any>;
  return {
    trigger_kind: t.kind,
    trigger: JSON.stringify(t),
    trigger_column_id: t.kind === 'pipeline_stage' ? t.columnId : null,
    trigger_automation_id: t.kind === 'monitor' ? t.automationId : null,
    next_run_at: status === 'active' && t.kind === 'schedule' ? nextCronTime(t.cron, now, t.timezone) : null,
  };
}

function ownerColumns(ctx: OperationContext) {
  const p = ctx.principal;
  return { owner_kind: p.kind, owner_api_key_id: p.apiKeyId, owner_grant_id: p.grantId, owner_label: p.actorLabel.slice(0, 255) };
}

const newHookId = () => `wfh_${crypto.randomBytes(12).toString('base64url')}`;

const id = (v: string | number) => Number(v);

export const createWorkflow = defineOperation({
  name: 'create-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows',
  scope: 'write',
  // A video_review answer carries the hook secret, which must not sit in plain text in the idempotency store.
  idempotency: 'none',
  input: 'create-workflow#/$defs/input',
  output: 'create-workflow#/$defs/output',
  annotations: write,
  errors: ['forbidden'],
  tag: 'workflows',
  toolset: 'workflows',
  successStatus: 201,
  summary: 'Create a workflow (inactive): a trigger and a graph of steps such as apply template, launch, review gate and chat message.',
  description: `${DEFINITION} ${PERMISSIONS} Trigger-started runs act as the credential that last saved the workflow.`,
  async handler(ctx, input: DefinitionInput) {
    const { brandId, ...def } = input;
    const reach = await checkSave(ctx, def, ctx.principal.kind);
    const now = ctx.now();
    const secret = def.trigger.kind === 'video_review' ? newWebhookSecret() : undefined;
    const row = {
      organization_id: ctx.principal.organizationId,
      brand_id: brandId,
      name: def.workflowName,
      type: def.type,
      status: 'inactive',
      ...triggerColumns(def, 'inactive', now),
      nodes: JSON.stringify(def.nodes.map((n) => ({ ...n, name: n.name ?? n.nodeId }))),
      edges: JSON.stringify(def.edges),
      reach_brand_ids: JSON.stringify(reach),
      acts: acts(def),
      created_by_kind: ctx.principal.kind,
      ...ownerColumns(ctx),
      version: 1,
      hook_id: secret ? newHookId() : null,
      hook_secret_sealed: secret ? ctx.secrets.seal(secret) : null,
      run_count: 0,
      created_at: now,
      updated_at: now,
    };
    const [wid] = await ctx.db('workflows').insert(row);
    const stored = (await ctx
      .db('workflows')
      .where({ id: Number(wid) })
      .first()) as WorkflowRow;
    return workflowView(ctx.db, stored, ctx.config.baseUrl, secret);
  },
});

export const listWorkflows = defineOperation({
  name: 'list-workflows',
  method: 'GET',
  path: '/brands/{brandId}/workflows',
  scope: 'read',
  idempotency: 'none',
  input: 'list-workflows#/$defs/input',
  output: 'list-workflows#/$defs/output',
  annotations: read,
  tag: 'workflows',
  toolset: 'workflows',
  summary: "List the brand's workflows, newest first: name, type, status, run count, whether one is running, last run time.",
  description: 'A brand-limited key sees only workflows whose every reached brand is its own. lastRunAt is null before the first run.',
  async handler(ctx, input: { brandId: number; cursor?: string; limit: number }) {
    const after = ctx.page.position();
    const rows: WorkflowRow[] = [];
    let before = after ? Number(after[0]) : null;
    let more = false;
    // Pages over what the credential may see: invisible rows are skipped, not counted.
    for (;;) {
      const batch: WorkflowRow[] = await ctx
        .db('workflows')
        .where({ organization_id: ctx.principal.organizationId, brand_id: input.brandId })
        .modify((q) => (before !== null ? q.where('id', '<', before) : q))
        .orderBy('id', 'desc')
        .limit(input.limit + 1);
      for (const r of batch) {
        if (!reachable(ctx.principal, JSON.parse(r.reach_brand_ids))) continue;
        if (rows.length === input.limit) {
          more = true;
          break;
        }
        rows.push(r);
      }
      if (more || batch.length <= input.limit) break;
      before = Number(batch[batch.length - 1].id);
    }
    return {
      workflows: await summaryViews(ctx.db, rows),
      nextCursor: more ? ctx.page.next([Number(rows[rows.length - 1].id)]) : null,
    };
  },
});

export const getWorkflow = defineOperation({
  name: 'get-workflow',
  method: 'GET',
  path: '/brands/{brandId}/workflows/{workflowId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-workflow#/$defs/input',
  output: 'get-workflow#/$defs/output',
  annotations: read,
  tag: 'workflows',
  toolset: 'workflows',
  summary: 'Get a workflow: its definition, version (send it back to save), status and run counters.',
  description: "Another brand's workflow, or one reaching a brand outside a limited key's brands, answers 404.",
  async handler(ctx, input: { brandId: number; workflowId: string }) {
    return workflowView(ctx.db, await loadWorkflow(ctx.db, ctx.principal, input.brandId, id(input.workflowId)), ctx.config.baseUrl);
  },
});

export const saveWorkflow = defineOperation({
  name: 'save-workflow',
  method: 'PUT',
  path: '/brands/{brandId}/workflows/{workflowId}',
  scope: 'write',
  idempotency: 'none',
  input: 'save-workflow#/$defs/input',
  output: 'save-workflow#/$defs/output',
  annotations: { ...write, idempotent: true },
  errors: ['forbidden', 'stale_read'],
  tag: 'workflows',
  toolset: 'workflows',
  summary: 'Replace a workflow definition; send the version you read (another version: 409 stale_read, read it again).',
  description: `${DEFINITION} ${PERMISSIONS} Runs already under way keep the definition they started with. The saver becomes the credential trigger-started runs act as.`,
  async handler(ctx, input: DefinitionInput & { workflowId: string; version: number }) {
    const { brandId, workflowId, version, ...def } = input;
    const current = await loadWorkflow(ctx.db, ctx.principal, brandId, id(workflowId), true);
    if (Number(current.version) !== version) {
      throw new ServiceError(
        'stale_read',
        `Workflow ${current.id} changed since it was read (version ${current.version}, not ${version}). Read it again and reapply your change.`,
        {
          currentVersion: Number(current.version),
        },
      );
    }
    const reach = await checkSave(ctx, def, current.created_by_kind);
    const now = ctx.now();
    let secret: string | undefined;
    const hook: Record<string, unknown> = {};
    if (def.trigger.kind === 'video_review' && !current.hook_id) {
      secret = newWebhookSecret();
      Object.assign(hook, { hook_id: newHookId(), hook_secret_sealed: ctx.secrets.seal(secret) });
    } else if (def.trigger.kind !== 'video_review' && current.hook_id) {
      Object.assign(hook, { hook_id: null, hook_secret_sealed: null });
    }
    const n = await ctx
      .db('workflows')
      .where({ id: current.id, version })
      .update({
        name: def.workflowName,
        type: def.type,
        ...triggerColumns(def, current.status, now),
        nodes: JSON.stringify(def.nodes.map((x) => ({ ...x, name: x.name ?? x.nodeId }))),
        edges: JSON.stringify(def.edges),
        reach_brand_ids: JSON.stringify(reach),
        acts: acts(def),
        ...ownerColumns(ctx),
        ...hook,
        armed_at: current.status === 'active' ? now : null,
        version: version + 1,
        updated_at: now,
      });
    if (n !== 1) throw new ServiceError('stale_read', `Workflow ${current.id} changed while it was being saved. Read it again.`, null);
    return workflowView(ctx.db, (await ctx.db('workflows').where({ id: current.id }).first()) as WorkflowRow, ctx.config.baseUrl, secret);
  },
});

async function setStatus(ctx: OperationContext, input: { brandId: number; workflowId: string }, status: 'active' | 'inactive') {
  const current = await loadWorkflow(ctx.db, ctx.principal, input.brandId, id(input.workflowId), true);
  const def = { trigger: JSON.parse(current.trigger), nodes: JSON.parse(current.nodes) } as Definition;
  if (status === 'active') requirePublish(ctx, def, 'Activating');
  const now = ctx.now();
  if (current.status !== status) {
    await ctx
      .db('workflows')
      .where({ id: current.id })
      .update({ status, next_run_at: triggerColumns(def, status, now).next_run_at, armed_at: status === 'active' ? now : null, updated_at: now });
  }
  return workflowView(ctx.db, (await ctx.db('workflows').where({ id: current.id }).first()) as WorkflowRow, ctx.config.baseUrl);
}

export const activateWorkflow = defineOperation({
  name: 'activate-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/activate',
  scope: 'write',
  idempotency: 'none',
  input: 'activate-workflow#/$defs/input',
  output: 'activate-workflow#/$defs/output',
  annotations: { ...write, idempotent: true },
  tag: 'workflows',
  toolset: 'workflows',
  summary: "Arm a workflow's trigger (status active): schedules fire, pipeline stages, monitors and the video-review hook start runs.",
  description: `Events from before activation start nothing. ${PERMISSIONS}`,
  async handler(ctx, input: { brandId: number; workflowId: string }) {
    return setStatus(ctx, input, 'active');
  },
});

export const deactivateWorkflow = defineOperation({
  name: 'deactivate-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/deactivate',
  scope: 'write',
  idempotency: 'none',
  input: 'deactivate-workflow#/$defs/input',
  output: 'deactivate-workflow#/$defs/output',
  annotations: { ...write, idempotent: true },
  tag: 'workflows',
  toolset: 'workflows',
  summary: "Disarm a workflow's trigger (status inactive); runs under way go on, run-workflow still starts it by hand.",
  async handler(ctx, input: { brandId: number; workflowId: string }) {
    return setStatus(ctx, input, 'inactive');
  },
});

export const runWorkflow = defineOperation({
  name: 'run-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/runs',
  scope: 'write',
  idempotency: 'optional',
  input: 'run-workflow#/$defs/input',
  output: 'run-workflow#/$defs/output',
  annotations: write,
  tag: 'workflows',
  toolset: 'workflows',
  successStatus: 202,
  summary: 'Start a run of a workflow now; answers 202 with the queued execution, whose steps then run in the background.',
  description:
    'The run acts as this credential: its scopes, brand limit and publish ceiling are checked when each step runs, and if the credential is revoked, ' +
    'expired or deleted meanwhile the rest of the run is refused. Follow it with get-workflow-execution. launchId names the launch of steps set to ' +
    `"$trigger.launchId". ${PERMISSIONS}`,
  async handler(ctx, input: { brandId: number; workflowId: number; launchId?: number }) {
    const w = await loadWorkflow(ctx.db, ctx.principal, input.brandId, id(input.workflowId), true);
    requirePublish(ctx, { nodes: JSON.parse(w.nodes) }, 'Running');
    if (input.launchId !== undefined)
      await requireReferences(ctx.db, ctx.principal, [{ kind: 'launch', field: 'launchId', id: input.launchId, brandId: input.brandId }]);
    const exec = await startExecution(ctx.db as Knex.Transaction, {
      workflow: w,
      runner: runnerOfPrincipal(ctx.principal),
      trigger: { kind: 'manual', key: null, data: input.launchId !== undefined ? { launchId: String(input.launchId) } : {} },
      now: ctx.now(),
      events: ctx.events,
    });
    return (await executionViews(ctx.db, [exec!]))[0];
  },
});

export const listWorkflowExecutions = defineOperation({
  name: 'list-workflow-executions',
  method: 'GET',
  path: '/brands/{brandId}/workflows/{workflowId}/executions',
  scope: 'read',
  idempotency: 'none',
  input: 'list-workflow-executions#/$defs/input',
  output: 'list-workflow-executions#/$defs/output',
  annotations: read,
  tag: 'workflows',
  toolset: 'workflows',
  summary: 'List the runs of a workflow, newest first, each with its status and the result of every node.',
  async handler(ctx, input: { brandId: number; workflowId: string; limit: number }) {
    const w = await loadWorkflow(ctx.db, ctx.principal, input.brandId, id(input.workflowId));
    const after = ctx.page.position();
    const rows: ExecutionRow[] = await ctx
      .db('workflow_executions')
      .where({ workflow_id: w.id })
      .modify((q) => (after ? q.where('id', '<', Number(after[0])) : q))
      .orderBy('id', 'desc')
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    return { executions: await executionViews(ctx.db, page), nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null };
  },
});

export const getWorkflowExecution = defineOperation({
  name: 'get-workflow-execution',
  method: 'GET',
  path: '/brands/{brandId}/workflows/{workflowId}/executions/{executionId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-workflow-execution#/$defs/input',
  output: 'get-workflow-execution#/$defs/output',
  annotations: read,
  tag: 'workflows',
  toolset: 'workflows',
  summary: "Get one run of a workflow: status (queued, running, waiting_review, succeeded, failed, canceled) and each node's status, result and error.",
  async handler(ctx, input: { brandId: number; workflowId: string; executionId: string }) {
    const w = await loadWorkflow(ctx.db, ctx.principal, input.brandId, id(input.workflowId));
    return (await executionViews(ctx.db, [await loadExecution(ctx.db, w, input.executionId)]))[0];
  },
});

/** The person who started a run: recorded at its start, or (for runs recorded before that) the creator of its key. */
async function authorOf(db: Knex | Knex.Transaction, exec: ExecutionRow): Promise<number | null> {
  if (exec.runner_user_id !== null && Number(exec.runner_user_id) > 0) return Number(exec.runner_user_id);
  if (exec.runner_kind !== 'api_key' || exec.runner_api_key_id === null) return null;
  const key = await db('api_keys').where({ id: exec.runner_api_key_id }).first('created_by_user_id');
  return key?.created_by_user_id ? Number(key.created_by_user_id) : null;
}

export const reviewWorkflowStep = defineOperation({
  name: 'review-workflow-step',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/executions/{executionId}/reviews',
  scope: 'write',
  idempotency: 'none',
  input: 'review-workflow-step#/$defs/input',
  output: 'review-workflow-step#/$defs/output',
  annotations: write,
  errors: ['forbidden', 'conflict'],
  tag: 'workflows',
  toolset: 'workflows',
  summary: 'Approve or reject a review gate of a run that waits for it; approve lets the run go on, reject ends it (canceled).',
  description:
    "Only a person other than the run's author may decide. The author is the person who started the run, or the person who created the API key " +
    'that started it (recorded when the run starts); their approval answers 403 forbidden whichever credential they use (that key, another key ' +
    'they created, their OAuth token). A gate that is not ' +
    'waiting (decided already, timed out, or not a review step) answers 409 conflict.',
  async handler(ctx, input: { brandId: number; workflowId: string; executionId: string; nodeId: string; decision: 'approve' | 'reject'; comment?: string }) {
    const db = ctx.db as Knex.Transaction;
    const w = await loadWorkflow(db, ctx.principal, input.brandId, id(input.workflowId));
    const exec = await loadExecution(db, w, input.executionId);
    const node = (JSON.parse(exec.definition).nodes as Definition['nodes']).find((n) => n.nodeId === input.nodeId);
    if (!node) throw notFound(`Node ${input.nodeId} of execution ${exec.id}`);
    const p = ctx.principal;
    // Separation of duties is by person: the run's author may not approve it with any credential of theirs.
    const sameKey = p.apiKeyId !== null && exec.runner_kind === 'api_key' && Number(exec.runner_api_key_id) === p.apiKeyId;
    const author = await authorOf(db, exec);
    const samePerson = author !== null && personOf(p) === author;
    if (sameKey || samePerson) {
      throw new ServiceError(
        'forbidden',
        `The run's author (${exec.runner_label}) may not review its own run, with this credential or any other of theirs; ask another member.`,
        null,
      );
    }
    const now = ctx.now();
    const decided = {
      decision: input.decision,
      reviewer: p.actorLabel.slice(0, 255),
      comment: input.comment ?? null,
      decidedAt: new Date(now).toISOString(),
    };
    const n = await db('workflow_node_results')
      .where({ execution_id: exec.id, node_id: node.nodeId, status: 'waiting_review' })
      .update({ status: input.decision === 'approve' ? 'succeeded' : 'rejected', result: JSON.stringify(decided), finished_at: now, deadline_at: null });
    if (n !== 1 || node.kind !== 'review') {
      throw new ServiceError('conflict', `Node ${node.nodeId} of execution ${exec.id} is not a review gate waiting for a decision.`, { status: exec.status });
    }
    await db('workflow_executions').where({ id: exec.id }).update({ status: 'running', updated_at: now });
    await wakeJob(db, STEP_JOB, String(exec.id), now);
    return (await executionViews(db, [await loadExecution(db, w, input.executionId)]))[0];
  },
});

export const deleteWorkflow = defineOperation({
  name: 'delete-workflow',
  method: 'DELETE',
  path: '/brands/{brandId}/workflows/{workflowId}',
  scope: 'write',
  idempotency: 'none',
  input: 'delete-workflow#/$defs/input',
  output: 'delete-workflow#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  tag: 'workflows',
  toolset: 'workflows',
  summary: 'Delete a workflow permanently, with its executions; runs under way stop before their next step.',
  async handler(ctx, input: { brandId: number; workflowId: string }) {
    const db = ctx.db as Knex.Transaction;
    const w = await loadWorkflow(db, ctx.principal, input.brandId, id(input.workflowId), true);
    const execIds = (await db('workflow_executions').where({ workflow_id: w.id }).pluck('id')).map(Number);
    if (execIds.length) {
      await db('workflow_node_results').whereIn('execution_id', execIds).delete();
      await db('jobs').where({ kind: STEP_JOB }).whereIn('job_key', execIds.map(String)).whereNull('locked_by').delete();
      await db('workflow_executions').whereIn('id', execIds).delete();
    }
    await db('workflows').where({ id: w.id }).delete();
    return { workflowId: String(w.id), deleted: true as const, executionsDeleted: execIds.length };
  },
});

export const workflowOperations = [
  createWorkflow,
  listWorkflows,
  getWorkflow,
  saveWorkflow,
  activateWorkflow,
  deactivateWorkflow,
  runWorkflow,
  listWorkflowExecutions,
  getWorkflowExecution,
  reviewWorkflowStep,
  deleteWorkflow,
];
