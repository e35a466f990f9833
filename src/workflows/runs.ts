// Starting and ending workflow runs. A run is an execution row with one result row per node; its
// steps run in the `run-workflow-step` job. The credential a run acts as is named by id (an API key
// or a person's OAuth grant) and checked again whenever it is used: if it no longer qualifies, the
// whole run is refused and nothing runs.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { principalOfApiKey, principalOfGrant } from '../auth/stored-principal.js';
import { isUniqueViolation } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import type { EventOutbox } from '../events/outbox.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { definitionOf, STEP_JOB, type ExecutionRow, type WorkflowRow } from './store.js';

type Db = Knex | Knex.Transaction;

/** Who a run acts as, and the person behind it (who may not approve its review gates). */
export interface Runner {
  kind: 'api_key' | 'user';
  apiKeyId: number | null;
  grantId: number | null;
  /** The person: the signed-in user, or the user who created the key (null when unknown). */
  userId: number | null;
  label: string;
}

/** The person behind a principal: the user, or the creator of the key; null when the key has none recorded. */
export function personOf(p: Principal): number | null {
  return p.userId > 0 ? p.userId : null;
}

export function runnerOfPrincipal(p: Principal): Runner {
  return { kind: p.kind, apiKeyId: p.apiKeyId, grantId: p.grantId, userId: personOf(p), label: p.actorLabel.slice(0, 255) };
}

/** The runner of a trigger-started run: the credential that last saved the workflow. */
export function ownerOf(w: WorkflowRow): Runner {
  return {
    kind: w.owner_kind,
    apiKeyId: w.owner_api_key_id === null ? null : Number(w.owner_api_key_id),
    grantId: w.owner_grant_id === null ? null : Number(w.owner_grant_id),
    userId: null,
    label: w.owner_label,
  };
}

/** The runner's Principal now, or the ServiceError that refuses it (revoked, expired, deleted, plan). */
export async function principalOfRunner(
  db: Db,
  organizationId: number,
  r: { kind: string; apiKeyId: number | null; grantId: number | null },
  now: number,
): Promise<Principal> {
  if (r.kind === 'api_key' && r.apiKeyId !== null) return principalOfApiKey(db, organizationId, r.apiKeyId, now);
  if (r.kind === 'user' && r.grantId !== null) return principalOfGrant(db, organizationId, r.grantId);
  throw new ServiceError('unauthenticated', 'The run has no credential to act as.');
}

export function runnerOfExecution(e: ExecutionRow) {
  return {
    kind: e.runner_kind,
    apiKeyId: e.runner_api_key_id === null ? null : Number(e.runner_api_key_id),
    grantId: e.runner_grant_id === null ? null : Number(e.runner_grant_id),
  };
}

export interface StartInput {
  workflow: WorkflowRow;
  runner: Runner;
  trigger: { kind: string; key: string | null; data: Record<string, unknown> };
  now: number;
  events: EventOutbox;
  /** Set when the runner no longer qualifies: the execution is recorded as failed and nothing runs. */
  refusal?: ServiceError | null;
}

/**
 * Records a new execution in `trx` (queued, its step job due now), or a refused one. Returns null
 * when this trigger already started a run of the workflow (the same event, schedule time or message).
 */
export async function startExecution(trx: Knex.Transaction, s: StartInput): Promise<ExecutionRow | null> {
  const w = s.workflow;
  const def = definitionOf(w);
  const refused = s.refusal ?? null;
  const row = {
    organization_id: w.organization_id,
    brand_id: w.brand_id,
    workflow_id: w.id,
    status: refused ? 'failed' : 'queued',
    trigger_kind: s.trigger.kind,
    trigger_key: s.trigger.key,
    trigger_data: JSON.stringify(s.trigger.data),
    runner_kind: s.runner.kind,
    runner_api_key_id: s.runner.apiKeyId,
    runner_grant_id: s.runner.grantId,
    runner_user_id: s.runner.userId,
    runner_label: s.runner.label,
    definition: JSON.stringify({ workflowName: def.workflowName, nodes: def.nodes, edges: def.edges }),
    error: refused ? JSON.stringify({ code: refused.code, message: `Run refused: ${refused.message}` }) : null,
    started_at: s.now,
    finished_at: refused ? s.now : null,
    updated_at: s.now,
  };
  let id: number;
  try {
    // A savepoint, so a duplicate start leaves the caller's transaction usable.
    id = await trx.transaction(async (sp) => Number((await sp('workflow_executions').insert(row))[0]));
  } catch (err) {
    if (s.trigger.key !== null && isUniqueViolation(err)) return null;
    throw err;
  }
  await trx('workflow_node_results').insert(def.nodes.map((n) => ({ execution_id: id, node_id: n.nodeId, status: refused ? 'canceled' : 'pending' })));
  await trx('workflows')
    .where({ id: w.id })
    .update({ run_count: trx.raw('run_count + 1'), last_run_at: s.now });
  if (refused) {
    await s.events.emit(trx, {
      organizationId: w.organization_id,
      brandId: w.brand_id,
      type: 'workflow.execution.finished',
      data: { brandId: w.brand_id, workflowId: Number(w.id), executionId: id, status: 'failed' },
    });
  } else {
    await wakeJob(trx, STEP_JOB, String(id), s.now);
  }
  return (await trx('workflow_executions').where({ id }).first()) as ExecutionRow;
}

/** Starts a trigger-fired run as the workflow's owner, checking the owner first (a refusal is recorded, nothing runs). */
export async function startTriggered(
  trx: Knex.Transaction,
  w: WorkflowRow,
  trigger: StartInput['trigger'],
  now: number,
  events: EventOutbox,
): Promise<ExecutionRow | null> {
  const runner = ownerOf(w);
  let refusal: ServiceError | null = null;
  try {
    const principal = await principalOfRunner(trx, w.organization_id, runner, now);
    // The person behind the grant, or the creator of the key, is the run's author: they may not review it.
    runner.userId = personOf(principal);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    refusal = err;
  }
  return startExecution(trx, { workflow: w, runner, trigger, now, events, refusal });
}
