// The workflows area's operations, read top to bottom: create, list, read, save (version-guarded),
// activate and deactivate the trigger, run, list and read executions, approve or reject a review
// gate, delete. The steps themselves run in the `run-workflow-step` job (jobs.ts), as the run's
// credential, through the same pipeline as a direct call. The video-review hook is not an operation
// (hooks.ts says why).

import crypto from 'node:crypto';
import { defineOperation, type BrandContext, type OperationDefinition } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { cancelJob, wakeJob } from '../jobs/queue/schedule.js';
import { inTransaction } from '../db/connection.js';
import { requireReferences } from '../references/resolve.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import { checkChatUrls } from './chat.js';
import { acts, checkDefinition, reachOf, type DefinitionDraft } from './definition.js';
import { STEP_JOB } from './kinds.js';
import { requirePublish } from './publish-rule.js';
import { definitionIssues } from './references.js';
import {
  bindPlans,
  currentFingerprint,
  definitionFingerprint,
  gateIssues,
  knownLaunchId,
  moneyStepAfter,
  planOfStep,
  requireBound,
  type PlanContext,
  type StepPlan,
} from './plans.js';
import { runnerOfPrincipal, startExecution } from './runs.js';
import { listWorkflowReviews, reviewRefusal } from './reviews.js';
import {
  decideReview,
  deleteWorkflowRows,
  executionsOf,
  findWorkflow,
  insertWorkflow,
  loadExecution,
  loadWorkflow,
  nodeResultsOf,
  planOfResult,
  reachable,
  saveDefinition,
  setExecutionStatus,
  setWorkflowStatus,
  workflowsOfBrand,
  type BoundPlan,
  type CredentialKind,
  type DefinitionFields,
  type Execution,
  type Workflow,
} from './store.js';
import { armSchedule, disarmSchedule } from './schedule.js';
import { approvalNeeded, fingerprintOf } from '../approvals/gate.js';
import { checkTrigger } from './trigger.js';
import { executionViews, summaryViews, workflowView } from './views.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

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

type SaveContext = BrandContext<'config' | 'validate' | 'outbound'>;

/** Every check of a definition about to be stored (shape, trigger, scope, brands, the agent rule), and what a save writes of it. */
async function checkSave(ctx: SaveContext, draft: DefinitionDraft, createdByKind: CredentialKind): Promise<DefinitionFields> {
  const now = ctx.now();
  const trigger = checkTrigger(draft.trigger, now);
  const nodes = checkDefinition(ctx, draft, ctx.config);
  // A review gate binds one plan: a gate followed by several launch or budget steps is refused, naming them.
  const gates = gateIssues({ nodes, edges: draft.edges });
  if (gates.length)
    throw validationFailed(
      gates,
      `Workflow definition is invalid: ${gates.length === 1 ? 'a review gate' : `${gates.length} review gates`} let more than one launch or budget step go on.`,
    );
  const def = { workflowName: draft.workflowName, type: draft.type, trigger, nodes, edges: draft.edges };
  await checkChatUrls(ctx.outbound, nodes);
  requirePublish(ctx.principal, nodes, 'Saving');
  // Every id the trigger and the steps name must exist in its brand and be within this credential's reach.
  const issues = await definitionIssues(ctx, ctx.brand.id, def);
  if (issues.length) throw validationFailed(issues, `Workflow definition is invalid: ${issues.length} issues.`);
  const p = ctx.principal;
  const limitedKey = p.kind === 'api_key' && p.brandIds !== null;
  if (limitedKey && createdByKind === 'user' && nodes.some((n) => n.kind === 'agent')) {
    throw new ServiceError(
      'forbidden',
      'A brand-limited API key may save an agent step only in a workflow created with an API key; this one belongs to a person.',
      null,
    );
  }
  return {
    name: def.workflowName,
    type: def.type,
    trigger,
    nodes,
    edges: def.edges,
    reachBrandIds: reachOf(ctx.brand.id, def),
    acts: acts(def),
    owner: { kind: p.kind, apiKeyId: p.apiKeyId, grantId: p.grantId, label: p.actorLabel.slice(0, 255) },
  };
}

const newHookId = () => `wfh_${crypto.randomBytes(12).toString('base64url')}`;

/** The workflow `id`, read again in the transaction that just wrote it. */
async function reread(ctx: BrandContext, id: number): Promise<Workflow> {
  const w = await findWorkflow(ctx.db, id);
  if (!w) throw notFound(`Workflow ${id} of brand ${ctx.brand.id}`);
  return w;
}

const createWorkflow = defineOperation({
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
  uses: ['config', 'validate', 'outbound', 'secrets'],
  async handler(ctx, input) {
    const { brandId, ...draft } = input;
    const fields = await checkSave(ctx, draft, ctx.principal.kind);
    const secret = draft.trigger.kind === 'video_review' ? newWebhookSecret() : undefined;
    const id = await insertWorkflow(ctx.db, {
      ...fields,
      organizationId: ctx.principal.organizationId,
      brandId,
      status: 'inactive',
      createdByKind: ctx.principal.kind,
      hook: secret ? { id: newHookId(), secretSealed: ctx.secrets.seal(secret) } : null,
      now: ctx.now(),
    });
    return workflowView(ctx.db, await reread(ctx, id), ctx.config.baseUrl, secret);
  },
});

const listWorkflows = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const rows: Workflow[] = [];
    let before = ctx.page.beforeId() ?? null;
    let more = false;
    // Pages over what the credential may see: invisible rows are skipped, not counted.
    for (;;) {
      const batch = await workflowsOfBrand(ctx.db, ctx.principal.organizationId, ctx.brand.id, before, input.limit + 1);
      for (const w of batch) {
        if (!reachable(ctx.principal, w.reachBrandIds)) continue;
        if (rows.length === input.limit) {
          more = true;
          break;
        }
        rows.push(w);
      }
      const last = batch.at(-1);
      if (more || batch.length <= input.limit || !last) break;
      before = last.id;
    }
    const lastKept = rows.at(-1);
    return {
      workflows: await summaryViews(ctx.db, rows),
      nextCursor: more && lastKept ? ctx.page.next([lastKept.id]) : null,
    };
  },
});

const getWorkflow = defineOperation({
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
  uses: ['config'],
  async handler(ctx, input) {
    return workflowView(ctx.db, await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId), ctx.config.baseUrl);
  },
});

const saveWorkflow = defineOperation({
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
  description: `${DEFINITION} ${PERMISSIONS} Runs already under way keep the definition they started with. The saver becomes the credential trigger-started runs act as. Saving an active workflow binds its launch and budget steps again to what they would do now (boundPlans, as activate-workflow).`,
  // Binding an active workflow's plans may ask the ad platform: never inside a transaction.
  transactional: false,
  uses: ['config', 'validate', 'outbound', 'secrets', 'platforms', 'trackers', 'events'],
  async handler(ctx, input) {
    const { brandId, workflowId, version, ...draft } = input;
    const current = await loadWorkflow(ctx.db, ctx.principal, brandId, workflowId, true);
    if (current.version !== version) {
      throw new ServiceError(
        'stale_read',
        `Workflow ${current.id} changed since it was read (version ${current.version}, not ${version}). Read it again and reapply your change.`,
        {
          currentVersion: current.version,
        },
      );
    }
    const fields = await checkSave(ctx, draft, current.createdByKind);
    const now = ctx.now();
    let secret: string | undefined;
    if (draft.trigger.kind === 'video_review' && !current.hookId) {
      secret = newWebhookSecret();
      fields.hook = { id: newHookId(), secretSealed: ctx.secrets.seal(secret) };
    } else if (draft.trigger.kind !== 'video_review' && current.hookId) {
      fields.hook = null;
    }
    // Saving an armed workflow arms what is saved: its money steps are bound again, to what they would do now.
    const boundPlans = current.status === 'active' ? await bindPlans(ctx, current.brandId, fields) : null;
    if (boundPlans) {
      const waiting = await armApproval(ctx, 'save-workflow', { ...input }, { ...current, name: fields.name }, boundPlans);
      if (waiting) return waiting;
    }
    await inTransaction(ctx.db, async (trx) => {
      const n = await saveDefinition(trx, current.id, version, { ...fields, armedAt: current.status === 'active' ? now : null, boundPlans, now });
      if (n !== 1) throw new ServiceError('stale_read', `Workflow ${current.id} changed while it was being saved. Read it again.`, null);
      // An edited schedule moves to its new next time (another trigger: no schedule job).
      await armSchedule(trx, { id: current.id, status: current.status, trigger: fields.trigger }, now);
    });
    return workflowView(ctx.db, await reread(ctx, current.id), ctx.config.baseUrl, secret);
  },
});

/**
 * Arming a money workflow is a money path (paths.md "Approvals by a person"): in an organization where
 * people decide, an agent's activate (or save of an active workflow) waits for a person's approval of
 * the plans it binds now, for this version of the workflow; a version saved since, or a plan changed
 * since, makes the approval stale. Null when the workflow has no launch or budget step (nothing to
 * approve) or the call may go ahead.
 */
function armApproval(
  ctx: BrandContext<'config' | 'events'>,
  operation: 'activate-workflow' | 'save-workflow',
  input: Record<string, unknown>,
  w: Pick<Workflow, 'id' | 'brandId' | 'name' | 'version'>,
  boundPlans: BoundPlan[],
) {
  if (!boundPlans.length) return Promise.resolve(null);
  const plan = { operation, workflowId: String(w.id), workflowName: w.name, version: w.version, boundPlans };
  return approvalNeeded(ctx, {
    kind: 'arm_workflow',
    brandId: w.brandId,
    operation,
    input,
    launchId: null,
    nodeId: null,
    plan,
    planFingerprint: fingerprintOf('arm_workflow', plan),
    amounts: boundPlans.flatMap((b) => b.amounts),
  });
}

/**
 * Arms (binding each money step to its plan now, or to the plans named, paths.md "Who may cause a
 * publish") or disarms. Read outside any transaction (a plan may ask the ad platform), written in one.
 */
async function setStatus(ctx: BrandContext<'config' | 'events'> & PlanContext, workflowId: number, status: Workflow['status'], named?: string[]) {
  const current = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, workflowId, true);
  if (status === 'active') requirePublish(ctx.principal, current.nodes, 'Activating');
  const boundPlans = status === 'active' ? await bindPlans(ctx, current.brandId, current) : null;
  if (boundPlans) {
    requireBound(boundPlans, named);
    const input = { brandId: current.brandId, workflowId: current.id, ...(named ? { planFingerprints: named } : {}) };
    const waiting = await armApproval(ctx, 'activate-workflow', input, current, boundPlans);
    if (waiting) return waiting;
  }
  const now = ctx.now();
  // Arming again re-binds the plans to what the steps would do now.
  if (current.status !== status || status === 'active') {
    await inTransaction(ctx.db, async (trx) => {
      await setWorkflowStatus(trx, current.id, {
        status,
        armedAt: status === 'active' ? (current.status === 'active' ? current.armedAt : now) : null,
        boundPlans,
        now,
      });
      await armSchedule(trx, { id: current.id, status, trigger: current.trigger }, now);
    });
  }
  return workflowView(ctx.db, await reread(ctx, current.id), ctx.config.baseUrl);
}

const activateWorkflow = defineOperation({
  name: 'activate-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/activate',
  scope: 'write',
  idempotency: 'none',
  input: 'activate-workflow#/$defs/input',
  output: 'activate-workflow#/$defs/output',
  annotations: { ...write, destructive: true, idempotent: true, openWorld: true },
  tag: 'workflows',
  toolset: 'workflows',
  // Binding reads each money step's plan, which may ask the ad platform: never inside a transaction.
  transactional: false,
  errors: ['stale_read'],
  summary: "Arm a workflow's trigger (status active): schedules fire, pipeline stages, monitors and the video-review hook start runs.",
  description:
    `Events from before activation start nothing. ${PERMISSIONS} Arming binds each launch and budget step to what it would do now ` +
    "(boundPlans: the launch's planFingerprint, a budget step's live change, the amounts per ad account); a run its trigger starts carries a money step out " +
    'only while its plan is the one bound (else the step stops with stale_read, nothing is published, a chat notice and the workflow.failed event go out, ' +
    'and the workflow stays armed). planFingerprints (one per bound plan that has one, in boundPlans order) arms only for the plans shown: ' +
    'changed since, 409 stale_read with details.boundPlans, nothing armed. Activating an active workflow binds its plans again.',
  uses: ['config', 'platforms', 'trackers', 'events'],
  async handler(ctx, input) {
    return setStatus(ctx, input.workflowId, 'active', input.planFingerprints);
  },
});

const deactivateWorkflow = defineOperation({
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
  transactional: false,
  uses: ['config', 'platforms', 'trackers', 'events'],
  async handler(ctx, input) {
    return setStatus(ctx, input.workflowId, 'inactive');
  },
});

/**
 * The plan a run started with `planFingerprint` confirms: that of its first launch or budget step (the
 * launch's fingerprint, or the workflow's steps as saved when an earlier step makes the launch), which
 * that step then publishes only; 409 stale_read with the current fingerprint when it changed since.
 */
async function confirmedRunPlan(ctx: BrandContext, w: Workflow, data: Record<string, unknown>, named: string) {
  const step = moneyStepAfter(w, null);
  if (!step) return null;
  const launchId = knownLaunchId(step.settings.launchId, data, new Map());
  const fingerprint = launchId === null ? null : await currentFingerprint(ctx, ctx.brand.id, step, { launchId });
  const now = fingerprint ?? definitionFingerprint(w);
  if (now !== named) {
    throw new ServiceError(
      'stale_read',
      `The plan of step ${step.nodeId} changed since ${named.slice(0, 12)}... was shown${launchId === null ? '' : ` (launch ${launchId})`}: nothing was started. Show the current plan and run again with its planFingerprint.`,
      { reason: 'plan_changed', stepNodeId: step.nodeId, launchId, planFingerprint: now },
    );
  }
  return fingerprint === null ? null : { stepNodeId: step.nodeId, planFingerprint: fingerprint };
}

const runWorkflow = defineOperation({
  name: 'run-workflow',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/runs',
  scope: 'write',
  idempotency: 'optional',
  errors: ['stale_read'],
  input: 'run-workflow#/$defs/input',
  output: 'run-workflow#/$defs/output',
  // Can start a publish (a launch, budget or agent step).
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  tag: 'workflows',
  toolset: 'workflows',
  successStatus: 202,
  summary: 'Start a run of a workflow now; answers 202 with the queued execution, whose steps then run in the background.',
  description:
    'The run acts as this credential: its scopes, brand limit and publish ceiling are checked when each step runs, and if the credential is revoked, ' +
    'expired or deleted meanwhile the rest of the run is refused. Follow it with get-workflow-execution. launchId names the launch of steps set to ' +
    '"$trigger.launchId". planFingerprint binds the run to the plan of its first launch or budget step as shown (changed since: 409 stale_read, nothing started). ' +
    "A run binds at its start: each launch and budget step whose launch is known acts only on its plan as it is then (the execution's trigger.boundPlans; changed before the step: it stops with stale_read). " +
    PERMISSIONS,
  // Binding reads each money step's plan, which may ask the ad platform: never inside a transaction.
  transactional: false,
  uses: ['events', 'platforms', 'config', 'trackers'],
  async handler(ctx, input) {
    const w = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId, true);
    requirePublish(ctx.principal, w.nodes, 'Running');
    if (input.launchId !== undefined)
      await requireReferences(ctx.db, ctx.principal, [{ kind: 'launch', field: 'launchId', id: input.launchId, brandId: ctx.brand.id }]);
    const data: Record<string, unknown> = input.launchId !== undefined ? { launchId: String(input.launchId) } : {};
    if (input.planFingerprint !== undefined) {
      const confirmed = await confirmedRunPlan(ctx, w, data, input.planFingerprint);
      if (confirmed) data.confirmedPlan = confirmed;
    }
    // A run binds at its start: each money step whose launch is known acts only on its plan as it is now.
    const bound = (await bindPlans(ctx, w.brandId, w)).filter((b) => b.planFingerprint !== null);
    if (bound.length) data.boundPlans = bound;
    const exec = await inTransaction(ctx.db, (trx) =>
      startExecution(trx, {
        workflow: w,
        runner: runnerOfPrincipal(ctx.principal),
        trigger: { kind: 'manual', key: null, data },
        now: ctx.now(),
        events: ctx.events,
      }),
    );
    // A manual run has no trigger key, so it is never a duplicate.
    if (!exec) throw new Error(`workflow ${w.id}: a manual run was taken for a duplicate`);
    return (await executionViews(ctx.db, [exec]))[0];
  },
});

const listWorkflowExecutions = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const w = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId);
    const { rows, nextCursor } = ctx.page.pageOf(await executionsOf(ctx.db, w.id, ctx.page.beforeId(), input.limit + 1), (e) => [e.id]);
    return { executions: await executionViews(ctx.db, rows), nextCursor };
  },
});

const getWorkflowExecution = defineOperation({
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
  uses: [],
  async handler(ctx, input) {
    const w = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId);
    return (await executionViews(ctx.db, [await loadExecution(ctx.db, w.id, input.executionId)]))[0];
  },
});

/**
 * The plan an approval of a gate approves: the recorded one while the launch is unchanged, or the
 * current one when the reviewer names it (`planFingerprint`); 409 stale_read, with the current plan,
 * when the launch is not the plan the approval names (the recorded one by default). A plan named
 * after a change is read once and stored only when that reading has the fingerprint named, so a
 * launch changing while the approval reads it never slips another plan in.
 */
async function approvedPlan(ctx: PlanContext, exec: Execution, recorded: StepPlan | null, named: string | undefined): Promise<StepPlan | null> {
  if (!recorded || recorded.planFingerprint === null) return recorded;
  const step = exec.definition.nodes.find((n) => n.nodeId === recorded.stepNodeId);
  const expected = named ?? recorded.planFingerprint;
  const read = () => (step ? planOfStep(ctx, exec.brandId, step, recorded.launchId, ctx.now()) : Promise.resolve(null));
  if (expected === recorded.planFingerprint) {
    // The plan the gate recorded (and showed): approved while the launch still is that plan.
    const now = await currentFingerprint(ctx, exec.brandId, step, recorded);
    if (now === expected) return recorded;
    const current = await read();
    throw planChanged(recorded, expected, current ? current.planFingerprint : now, current);
  }
  const current = await read();
  if (current && current.planFingerprint === expected) return current;
  throw planChanged(recorded, expected, current ? current.planFingerprint : await currentFingerprint(ctx, exec.brandId, step, recorded), current);
}

/** The 409 of an approval whose plan is not the launch's now: the gate still waits, details carry the plan now. */
function planChanged(recorded: StepPlan, expected: string, now: string | null, current: StepPlan | null): ServiceError {
  return new ServiceError(
    'stale_read',
    `Launch ${recorded.launchId} changed since the plan ${expected.slice(0, 12)}... the approval names (step ${recorded.stepNodeId}): nothing was approved and the gate still waits. ` +
      'Look at the current plan (details.plan) and approve again with its planFingerprint.',
    { reason: 'plan_changed', launchId: recorded.launchId, stepNodeId: recorded.stepNodeId, planFingerprint: now, plan: current },
  );
}

const reviewWorkflowStep = defineOperation({
  name: 'review-workflow-step',
  method: 'POST',
  path: '/brands/{brandId}/workflows/{workflowId}/executions/{executionId}/reviews',
  scope: 'write',
  idempotency: 'none',
  input: 'review-workflow-step#/$defs/input',
  output: 'review-workflow-step#/$defs/output',
  annotations: { ...write, destructive: true, openWorld: true },
  errors: ['forbidden', 'conflict', 'stale_read'],
  tag: 'workflows',
  toolset: 'workflows',
  // Reading the plan may ask the ad platform (an account's countries, minimums): never inside a transaction.
  transactional: false,
  summary: 'Approve or reject a review gate of a run that waits for it; approve lets the run go on, reject ends it (canceled).',
  description:
    "Only a person other than the run's author may decide. The author is the person who started the run, or the person who created the API key " +
    'that started it (recorded when the run starts); their approval answers 403 forbidden whichever credential they use (that key, another key ' +
    'they created, their OAuth token). A gate that is not ' +
    'waiting (decided already, timed out, or not a review step) answers 409 conflict. A gate a launch or budget step follows shows that ' +
    "step's plan (the review node's plan); an approval publishes that plan only: if the launch changed since, it answers 409 stale_read " +
    '(details.planFingerprint, details.plan: the current plan) and the gate stays pending; approve again with planFingerprint to approve the plan now shown.',
  uses: ['platforms', 'config', 'trackers', 'activity', 'events'],
  async handler(ctx, input) {
    const w = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId);
    const exec = await loadExecution(ctx.db, w.id, input.executionId);
    const node = exec.definition.nodes.find((n) => n.nodeId === input.nodeId);
    if (!node) throw notFound(`Node ${input.nodeId} of execution ${exec.id}`);
    const p = ctx.principal;
    // Separation of duties is by person: the run's author may not approve it with any credential of theirs.
    const refusal = await reviewRefusal(ctx, p, exec);
    if (refusal) throw new ServiceError('forbidden', refusal, null);
    const gate = (await nodeResultsOf(ctx.db, [exec.id])).find((r) => r.nodeId === node.nodeId);
    const notWaiting = () =>
      new ServiceError('conflict', `Node ${node.nodeId} of execution ${exec.id} is not a review gate waiting for a decision.`, { status: exec.status });
    if (node.kind !== 'review' || gate?.status !== 'waiting_review') throw notWaiting();
    const recorded = planOfResult(gate) as StepPlan | null;
    const plan = input.decision === 'approve' ? await approvedPlan(ctx, exec, recorded, input.planFingerprint) : recorded;
    // Approving a gate a launch or budget step follows is money: in an organization where people decide, an agent's approval waits for a person's.
    if (input.decision === 'approve' && plan) {
      const shown = { workflowId: String(w.id), workflowName: w.name, executionId: String(exec.id), nodeId: node.nodeId, stepPlan: plan };
      const waiting = await approvalNeeded(ctx, {
        kind: 'review',
        brandId: ctx.brand.id,
        operation: 'review-workflow-step',
        input: { ...input, ...(plan.planFingerprint !== null ? { planFingerprint: plan.planFingerprint } : {}) },
        launchId: plan.launchId !== null && /^\d{1,15}$/.test(plan.launchId) ? Number(plan.launchId) : null,
        nodeId: null,
        plan: shown,
        planFingerprint: plan.planFingerprint ?? fingerprintOf('review', shown),
        amounts: plan.accounts,
      });
      if (waiting) return waiting;
    }
    const now = ctx.now();
    const decided = {
      decision: input.decision,
      reviewer: p.actorLabel.slice(0, 255),
      comment: input.comment ?? null,
      decidedAt: new Date(now).toISOString(),
    };
    await inTransaction(ctx.db, async (trx) => {
      // One conditional statement: a gate decided meanwhile (or timed out) is not decided again.
      if ((await decideReview(trx, exec.id, node.nodeId, input.decision === 'approve', decided, plan as Record<string, unknown> | null, now)) !== 1)
        throw notWaiting();
      await setExecutionStatus(trx, exec.id, 'running', now);
      await wakeJob(trx, STEP_JOB, String(exec.id), now);
      // The activity log names the person who decided, on the launch (and each ad account) the gate's plan moves.
      const bound = plan as StepPlan | null;
      const accounts = [...new Set((bound?.accounts ?? []).map((a) => a.accountId))];
      for (const accountId of accounts.length ? accounts : [null]) {
        await ctx.activity.record(
          {
            brandId: ctx.brand.id,
            accountId,
            entityType: 'unknown',
            entityId: bound?.launchId ?? String(exec.id),
            entityName: w.name,
            action: input.decision === 'approve' ? 'workflow.review_approved' : 'workflow.review_rejected',
          },
          trx,
        );
      }
    });
    return (await executionViews(ctx.db, [await loadExecution(ctx.db, w.id, exec.id)]))[0];
  },
});

const deleteWorkflow = defineOperation({
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
  uses: [],
  async handler(ctx, input) {
    const w = await loadWorkflow(ctx.db, ctx.principal, ctx.brand.id, input.workflowId, true);
    const execIds = await deleteWorkflowRows(ctx.db, w.id);
    for (const id of execIds) await cancelJob(ctx.db, STEP_JOB, String(id));
    await disarmSchedule(ctx.db, w.id);
    return { workflowId: String(w.id), deleted: true as const, executionsDeleted: execIds.length };
  },
});

export const operations: OperationDefinition[] = [
  createWorkflow,
  listWorkflows,
  getWorkflow,
  saveWorkflow,
  activateWorkflow,
  deactivateWorkflow,
  runWorkflow,
  listWorkflowExecutions,
  getWorkflowExecution,
  listWorkflowReviews,
  reviewWorkflowStep,
  deleteWorkflow,
];
