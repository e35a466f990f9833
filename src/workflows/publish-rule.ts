// Who may cause a publish, decided here and nowhere else: a workflow with a step that spends or acts
// on live campaigns moves money, and only a credential holding `publish` may start one, whether it
// runs the workflow or places a pipeline card where the workflow starts. A run's `launch` and
// `budget` steps act only when the run's cause holds `publish` (causeHoldsPublish), for every
// trigger kind: a manual run's caller, the saver for a schedule or the video-review hook, the card's
// mover for a pipeline stage, and for a monitor the automation run's cause (its caller when run by
// hand, whoever last saved the automation when scheduled). Shadow automation runs start nothing.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { ServiceError } from '../errors.js';
import { acts, type WorkflowNode } from './definition.js';
import { principalOfRunner } from './runs.js';
import { workflowsOfColumn, type CredentialKind } from './store.js';

type Db = Knex | Knex.Transaction;

/** True when the caller may cause a publish. */
export function canPublish(principal: Pick<Principal, 'scopes'>): boolean {
  return principal.scopes.has('publish');
}

/** True when a run of a workflow with these steps may start for a caller that can (or cannot) publish. */
export function mayStart(def: { nodes: Array<Pick<WorkflowNode, 'kind'>> }, callerCanPublish: boolean): boolean {
  return callerCanPublish || !acts(def);
}

/** Throws 403 insufficient_scope (details.requiredScope publish) when `principal` may not save, arm or run a workflow with these steps. */
export function requirePublish(principal: Pick<Principal, 'scopes'>, nodes: Array<Pick<WorkflowNode, 'kind'>>, what: string): void {
  if (mayStart({ nodes }, canPublish(principal))) return;
  throw new ServiceError(
    'insufficient_scope',
    `${what} a workflow with a launch, pause, budget or agent step needs the "publish" scope; this credential has ${[...principal.scopes].join(', ') || 'none'}.`,
    { requiredScope: 'publish' },
  );
}

/**
 * True when a card entering this column can start a workflow that moves money: its linked workflow
 * or one whose pipeline-stage trigger names it, active or not (arming it later must not open a door).
 */
export async function placementMovesMoney(
  db: Db,
  organizationId: number,
  brandId: number,
  column: { id: number; workflowId: number | null },
): Promise<boolean> {
  return (await workflowsOfColumn(db, organizationId, brandId, column.id, column.workflowId)).some((w) => acts(w));
}

/** A credential named by id, as stored to name a cause later (an automation's last saver). */
export interface StoredCredential {
  kind: CredentialKind;
  apiKeyId: number | null;
  grantId: number | null;
}

/** The credential `principal` is, to be stored. */
export function credentialOf(principal: Pick<Principal, 'kind' | 'apiKeyId' | 'grantId'>): StoredCredential {
  return { kind: principal.kind, apiKeyId: principal.apiKeyId, grantId: principal.grantId };
}

/** Whether the stored credential holds `publish` now: false when none is recorded or it no longer qualifies (revoked, expired, gone). */
export async function storedCanPublish(db: Db, organizationId: number, c: StoredCredential | null, now: number): Promise<boolean> {
  if (!c) return false;
  try {
    return canPublish(await principalOfRunner(db, organizationId, c, now));
  } catch (err) {
    if (err instanceof ServiceError) return false;
    throw err;
  }
}

/** True for the steps that move money and so need the run's cause to hold `publish`. */
export function needsPublishCause(node: Pick<WorkflowNode, 'kind'>): boolean {
  return node.kind === 'launch' || node.kind === 'budget';
}

/**
 * Whether the cause of a run (trigger `kind`, its recorded `data`) holds `publish`, the run acting as
 * `runner`. A manual run's cause is its caller and the triggers no caller makes (a schedule, the
 * video-review hook) are caused by the saver: both are the runner. A pipeline stage's cause is the
 * card's mover and a monitor's the automation run's cause, recorded when the event happened
 * (`causeCanPublish`); the runner (the saver) must hold it too. A monitor run recorded without its
 * cause holds none (a card's run is vouched for by how it started); an unknown kind holds none.
 */
export function causeHoldsPublish(kind: string, data: Record<string, unknown>, runner: Pick<Principal, 'scopes'>): boolean {
  switch (kind) {
    case 'manual':
    case 'schedule':
    case 'video_review':
      return canPublish(runner);
    case 'pipeline_stage':
      // A card's run that moves money was only ever started for a mover holding publish (mayStart):
      // one recorded before the cause was written down is vouched for by that.
      return data.causeCanPublish !== false && canPublish(runner);
    case 'monitor':
      return data.causeCanPublish === true && canPublish(runner);
    default:
      return false;
  }
}

/** The principal a run's steps act as: without `publish` when the run's cause does not hold it (an agent step cannot publish either). */
export function principalForCause<P extends Pick<Principal, 'scopes'>>(kind: string, data: Record<string, unknown>, runner: P): P {
  if (causeHoldsPublish(kind, data, runner) || !canPublish(runner)) return runner;
  return { ...runner, scopes: new Set([...runner.scopes].filter((s) => s !== 'publish')) };
}
