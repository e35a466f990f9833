// Whether a money path goes ahead or waits for a person (paths.md "Approvals by a person"): when the
// organization's agentPublishes is `person`, an API key or an OAuth token does not move money; its
// call records an approval of exactly the plan it would carry out (its planFingerprint and amounts)
// and answers 202 with it. A signed-in person's own calls go ahead. An approval being carried out
// goes ahead only while the money path is still the plan the person approved (else 409 stale_read).
// Every money path calls approvalNeeded at the point where it knows its plan and before it moves
// anything: a launch publish, a live budget, a live status, saving or running an automation that
// resumes, arming a money workflow (activating, or saving an active one), approving a review gate a
// launch or budget step follows.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import type { Principal } from '../auth/principal.js';
import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { canonicalJson } from '../pagination/cursor.js';
import { agentPublishesOf } from '../account/store.js';
import { insertApproval, type Approval } from './store.js';
import { Accepted } from '../catalogue/invoke-types.js';
import { approvalView } from './view.js';

/** The operations whose calls may become an approval (a surface that asks the person about one waits for it). */
export const MONEY_OPERATIONS: ReadonlySet<string> = new Set([
  'launch-campaign',
  'edit-live-campaign',
  'update-node',
  'create-automation',
  'update-automation',
  'run-automation',
  'activate-workflow',
  'save-workflow',
  'review-workflow-step',
]);

/** True for a credential an agent uses (an API key, an OAuth token), not a person's own session nor an approval carried out. */
export function isAgent(p: Principal): boolean {
  return !p.approvedBy && (p.kind === 'api_key' || p.grantId !== null);
}

/** Whether `p`'s money paths wait for a person: an agent's credential in an organization whose agentPublishes is `person`. */
export async function decidedByPerson(db: Knex | Knex.Transaction, p: Principal): Promise<boolean> {
  return isAgent(p) && (await agentPublishesOf(db, p.organizationId)) === 'person';
}

/** What a money path asks a person to approve: what approving carries out, its plan and amounts. */
export type ApprovalRequest = Pick<Approval, 'kind' | 'brandId' | 'operation' | 'input' | 'launchId' | 'nodeId' | 'plan' | 'planFingerprint' | 'amounts'>;

/** A fingerprint of `what` (a plan that has none of its own: an automation's rule, a workflow's bound plans). */
export function fingerprintOf(...what: unknown[]): string {
  return crypto.createHash('sha256').update(canonicalJson(what)).digest('base64url');
}

/**
 * The approval this call waits for when its organization wants a person to decide (null: go ahead),
 * recorded with the approval.requested event in one transaction. Carrying an approval out, the
 * money path must still be the plan approved: otherwise 409 stale_read and nothing moves.
 */
export async function approvalNeeded(ctx: ServiceContext<'config' | 'events'>, request: ApprovalRequest): Promise<Accepted | null> {
  const p = ctx.principal;
  if (p.approvedBy !== undefined) {
    if (p.approvedPlan !== undefined && p.approvedPlan !== request.planFingerprint)
      throw new ServiceError(
        'stale_read',
        `What was approved changed since it was asked for (${describeKind(request.kind)}): nothing was done. Ask the agent to prepare it again.`,
        { reason: 'plan_changed', planFingerprint: request.planFingerprint },
      );
    return null;
  }
  if (!(await decidedByPerson(ctx.db, p))) return null;
  const now = ctx.now();
  const row: Omit<Approval, 'id'> = {
    organizationId: p.organizationId,
    ...request,
    requestedByKind: p.kind,
    requestedByApiKeyId: p.apiKeyId,
    requestedByGrantId: p.grantId,
    requestedByUserId: p.userId,
    requestedBy: p.actorLabel.slice(0, 255),
    requestedAt: now,
    expiresAt: now + Math.round(ctx.config.approvalTtlHours * 3_600_000),
    status: 'waiting',
    decidedBy: null,
    decidedByUserId: null,
    decidedAt: null,
    comment: null,
    result: null,
  };
  // The approval and its event in one transaction (the caller's, or one of its own for an operation that owns its transactions).
  const record = async (trx: Knex | Knex.Transaction) => {
    const id = await insertApproval(trx, row);
    const view = approvalView({ ...row, id }, ctx.config.baseUrl);
    await ctx.events.emit(trx, {
      organizationId: p.organizationId,
      brandId: request.brandId,
      type: 'approval.requested',
      data: {
        brandId: request.brandId,
        approvalId: id,
        kind: request.kind,
        launchId: view.launchId ?? null,
        nodeId: request.nodeId,
        planFingerprint: request.planFingerprint,
        amounts: request.amounts,
        requestedBy: view.requestedBy,
        consoleUrl: view.consoleUrl,
      },
    });
    return view;
  };
  const view = (ctx.db as Knex.Transaction).isTransaction ? await record(ctx.db) : await inTransaction(ctx.db as Knex, record);
  return new Accepted('approval', view);
}

/** What approving a kind does, in words. */
export function describeKind(kind: string): string {
  switch (kind) {
    case 'publish':
      return 'publish a launch';
    case 'live_budget':
      return 'change a live budget';
    case 'live_status':
      return 'change the status of a live object';
    case 'resume':
      return 'save or run an automation that resumes live objects';
    case 'arm_workflow':
      return 'arm a workflow with launch or budget steps';
    case 'review':
      return 'approve a review gate a launch or budget step follows';
    default:
      return kind;
  }
}
