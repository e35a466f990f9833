// Whether a money path goes ahead or waits for a person (paths.md "Approvals by a person"): when the
// organization's agentPublishes is `person`, an API key or an OAuth token does not move money; its
// call records an approval of exactly the plan it would carry out (its planFingerprint and amounts)
// and answers 202 with it. A signed-in person's own calls, and an approval being carried out, go ahead.

import type { Principal } from '../auth/principal.js';
import type { ServiceContext } from '../catalogue/define.js';
import { agentPublishesOf } from '../account/store.js';
import { insertApproval, type Approval } from './store.js';
import { Accepted } from '../catalogue/invoke-types.js';
import { approvalView } from './view.js';

/** True for a credential an agent uses (an API key, an OAuth token), not a person's own session nor an approval carried out. */
export function isAgent(p: Principal): boolean {
  return !p.approvedBy && (p.kind === 'api_key' || p.grantId !== null);
}

/** What a money path asks a person to approve: what approving carries out, its plan and amounts. */
export type ApprovalRequest = Pick<Approval, 'kind' | 'brandId' | 'operation' | 'input' | 'launchId' | 'nodeId' | 'plan' | 'planFingerprint' | 'amounts'>;

/**
 * The approval this call waits for when its organization wants a person to decide (null: go ahead),
 * recorded with the approval.requested event in one transaction.
 */
export async function approvalNeeded(ctx: ServiceContext<'config' | 'events'>, request: ApprovalRequest): Promise<Accepted | null> {
  const p = ctx.principal;
  if (!isAgent(p) || (await agentPublishesOf(ctx.db, p.organizationId)) !== 'person') return null;
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
  };
  const trx = ctx.db;
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
      planFingerprint: request.planFingerprint,
      amounts: request.amounts,
      requestedBy: view.requestedBy,
      consoleUrl: view.consoleUrl,
    },
  });
  return new Accepted('approval', view);
}
