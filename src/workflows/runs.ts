// Starting workflow runs. A run is an execution with one result row per node; its steps run in the
// `run-workflow-step` job (jobs.ts). The credential a run acts as is named by id (an API key or a
// person's OAuth grant) and checked again whenever it is used: if it no longer qualifies, the whole
// run is refused and nothing runs.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { principalOfApiKey, principalOfGrant } from '../access/stored-principal.js';
import { ServiceError } from '../errors.js';
import type { Outbox } from '../catalogue/services.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { STEP_JOB } from './kinds.js';
import { insertExecution, type CredentialKind, type Execution, type Workflow } from './store.js';

type Db = Knex | Knex.Transaction;

/** Who a run acts as, and the person behind it (who may not approve its review gates). */
export interface Runner {
  kind: CredentialKind;
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
export function ownerOf(w: Workflow): Runner {
  return { kind: w.ownerKind, apiKeyId: w.ownerApiKeyId, grantId: w.ownerGrantId, userId: null, label: w.ownerLabel };
}

/** The runner's Principal now, or the ServiceError that refuses it (revoked, expired, deleted, plan). */
export async function principalOfRunner(
  db: Db,
  organizationId: number,
  r: { kind: CredentialKind; apiKeyId: number | null; grantId: number | null },
  now: number,
): Promise<Principal> {
  if (r.kind === 'api_key' && r.apiKeyId !== null) return principalOfApiKey(db, organizationId, r.apiKeyId, now);
  if (r.kind === 'user' && r.grantId !== null) return principalOfGrant(db, organizationId, r.grantId);
  throw new ServiceError('unauthenticated', 'The run has no credential to act as.');
}

export function runnerOfExecution(e: Execution) {
  return { kind: e.runnerKind, apiKeyId: e.runnerApiKeyId, grantId: e.runnerGrantId };
}

export interface StartInput {
  workflow: Workflow;
  runner: Runner;
  trigger: { kind: string; key: string | null; data: Record<string, unknown> };
  now: number;
  events: Outbox;
  /** Set when the runner no longer qualifies: the execution is recorded as failed and nothing runs. */
  refusal?: ServiceError | null;
}

/**
 * Records a new execution in the caller's transaction `trx` (queued, its step job due now), or a
 * refused one. Returns null when this trigger already started a run of the workflow (the same
 * event, schedule time or message).
 */
export async function startExecution(trx: Db, s: StartInput): Promise<Execution | null> {
  const w = s.workflow;
  const refused = s.refusal ?? null;
  const exec = await insertExecution(
    trx,
    {
      workflow: w,
      status: refused ? 'failed' : 'queued',
      trigger: s.trigger,
      runner: s.runner,
      definition: { workflowName: w.name, nodes: w.nodes, edges: w.edges },
      error: refused ? { code: refused.code, message: `Run refused: ${refused.message}` } : null,
      now: s.now,
    },
    refused ? 'canceled' : 'pending',
  );
  if (!exec) return null;
  if (refused) {
    await s.events.emit(trx, {
      organizationId: w.organizationId,
      brandId: w.brandId,
      type: 'workflow.execution.finished',
      data: { brandId: w.brandId, workflowId: w.id, executionId: exec.id, status: 'failed' },
    });
  } else {
    await wakeJob(trx, STEP_JOB, String(exec.id), s.now);
  }
  return exec;
}

/** Starts a trigger-fired run as the workflow's owner, checking the owner first (a refusal is recorded, nothing runs). */
export async function startTriggered(trx: Db, w: Workflow, trigger: StartInput['trigger'], now: number, events: Outbox): Promise<Execution | null> {
  const runner = ownerOf(w);
  let refusal: ServiceError | null = null;
  try {
    const principal = await principalOfRunner(trx, w.organizationId, runner, now);
    // The person behind the grant, or the creator of the key, is the run's author: they may not review it.
    runner.userId = personOf(principal);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    refusal = err;
  }
  // What arming bound goes with the run: its money steps act only while their plans are those (jobs.ts).
  const bound = w.boundPlans?.filter((b) => b.planFingerprint !== null) ?? [];
  const data = bound.length ? { ...trigger.data, boundPlans: bound } : trigger.data;
  return startExecution(trx, { workflow: w, runner, trigger: { ...trigger, data }, now, events, refusal });
}
