// The approvals area (paths.md "Approvals by a person"): the organization's settings (agentPublishes),
// and the approvals agents' money paths wait for: list, read, and the decision, which only a signed-in
// owner or admin makes (never the person behind the requesting credential). Approving carries the
// request out exactly as planned, as the credential that asked, naming the person who approved.

import { defineOperation, type OperationDefinition, type ServiceContext } from '../catalogue/define.js';
import type { Principal } from '../auth/principal.js';
import { ServiceError, notFound } from '../errors.js';
import { principalOfApiKey, principalOfGrant } from '../access/stored-principal.js';
import { agentPublishesOf, setAgentPublishes } from '../account/store.js';
import { approvalsOf, decideApproval, findApproval, reopenApproval, settleApproval, type Approval, type ApprovalStatus } from './store.js';
import { approvalView, decidedData } from './view.js';

const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

/** True for a person signed in to the console (not an API key, not an OAuth token an app holds). */
function isSession(p: Principal): boolean {
  return p.kind === 'user' && p.grantId === null && p.apiKeyId === null;
}

const isOwnerOrAdmin = (p: Principal) => p.role === 'owner' || p.role === 'admin';

/** Whether `p` may decide `a` now: a signed-in owner or admin, not the person behind the requesting credential, while it waits. */
const mayDecide = (p: Principal, a: Approval) => isSession(p) && isOwnerOrAdmin(p) && a.requestedByUserId !== p.userId && a.status === 'waiting';

const getOrganizationSettings = defineOperation({
  name: 'get-organization-settings',
  method: 'GET',
  path: '/organization/settings',
  scope: 'read',
  idempotency: 'none',
  input: 'get-organization-settings#/$defs/input',
  output: 'get-organization-settings#/$defs/output',
  annotations: read,
  tag: 'organization',
  toolset: 'integrate',
  summary: "Read the organization's settings: agentPublishes (direct, or person: agents prepare and people decide).",
  uses: [],
  async handler(ctx) {
    return { agentPublishes: await agentPublishesOf(ctx.db, ctx.principal.organizationId) };
  },
});

const updateOrganizationSettings = defineOperation({
  name: 'update-organization-settings',
  method: 'PATCH',
  path: '/organization/settings',
  scope: 'write',
  idempotency: 'none',
  input: 'update-organization-settings#/$defs/input',
  output: 'update-organization-settings#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  errors: ['forbidden'],
  tag: 'organization',
  toolset: 'integrate',
  summary: "Change the organization's settings (owners and admins): agentPublishes direct or person.",
  description:
    'With agentPublishes person, every money path an API key or OAuth token takes (a publish, a live budget or status, saving or running an automation that resumes, ' +
    'arming a money workflow, approving a review gate a launch or budget step follows) records an approval and answers 202 with it, ' +
    'and an owner or admin decides it in the console. Only a person who is an owner or admin changes this (an API key: 403 forbidden, so an agent never turns it off).',
  uses: [],
  async handler(ctx, input) {
    const p = ctx.principal;
    if (p.kind !== 'user' || !isOwnerOrAdmin(p))
      throw new ServiceError('forbidden', "Only an organization owner or admin, as a person (not an API key), changes the organization's settings.", {
        role: p.role,
      });
    await setAgentPublishes(ctx.db, p.organizationId, input.agentPublishes);
    return { agentPublishes: input.agentPublishes };
  },
});

const listApprovals = defineOperation({
  name: 'list-approvals',
  method: 'GET',
  path: '/brands/{brandId}/approvals',
  scope: 'read',
  idempotency: 'none',
  input: 'list-approvals#/$defs/input',
  output: 'list-approvals#/$defs/output',
  annotations: read,
  tag: 'approvals',
  toolset: 'workflows',
  summary: "List the brand's approvals, newest first: money paths agents took that wait for (or got) a person's decision.",
  description:
    'Each approval carries its plan, planFingerprint, amounts, status (waiting, approved, rejected, expired, stale) and the console address where a person decides it.',
  uses: ['config', 'page'],
  async handler(ctx, input) {
    const { rows, nextCursor } = ctx.page.pageOf(await approvalsOf(ctx.db, ctx.brand.id, ctx.page.beforeId() ?? null, input.limit + 1, ctx.now()), (a) => [
      a.id,
    ]);
    return { approvals: rows.map((a) => approvalView(a, ctx.config.baseUrl, mayDecide(ctx.principal, a))), nextCursor };
  },
});

const getApproval = defineOperation({
  name: 'get-approval',
  method: 'GET',
  path: '/brands/{brandId}/approvals/{approvalId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-approval#/$defs/input',
  output: 'get-approval#/$defs/output',
  annotations: read,
  tag: 'approvals',
  toolset: 'workflows',
  summary: 'Get one approval: what it would carry out, its amounts, its status and who decided it.',
  uses: ['config'],
  async handler(ctx, input) {
    const a = await loadApproval(ctx, input.approvalId);
    return approvalView(a, ctx.config.baseUrl, mayDecide(ctx.principal, a));
  },
});

async function loadApproval(ctx: ServiceContext & { brand: { id: number } }, approvalId: number): Promise<Approval> {
  const a = await findApproval(ctx.db, ctx.brand.id, approvalId, ctx.now());
  if (!a) throw notFound(`Approval ${approvalId} of brand ${ctx.brand.id}`);
  return a;
}

const decide = defineOperation({
  name: 'decide-approval',
  method: 'POST',
  path: '/brands/{brandId}/approvals/{approvalId}/decision',
  scope: 'write',
  idempotency: 'none',
  input: 'decide-approval#/$defs/input',
  output: 'decide-approval#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  errors: ['forbidden', 'conflict', 'stale_read'],
  tag: 'approvals',
  toolset: 'workflows',
  // Decided only from a person's signed-in session: no MCP tool (agents never decide), no CLI command, no
  // OpenAPI entry (no bearer credential qualifies); the console's form and REST's session-only route
  // (surfaces/rest/approval-decision.ts) invoke it as the person.
  internal: true,
  // Approving publishes through the ad platform (the requesting credential's launch-campaign): never inside a transaction.
  transactional: false,
  summary: 'Approve or reject an approval, as a signed-in owner or admin in the console; approving carries it out exactly as planned.',
  description:
    'Only a person signed in to the console who is an organization owner or admin decides, and never the person behind the requesting credential (403 forbidden). ' +
    'On REST (POST /v1/brands/{brandId}/approvals/{approvalId}/decision) it takes the console session only: its cookie, its CSRF token in X-CSRF-Token and an Origin of this site; ' +
    'an API key or an OAuth token is answered 403 forbidden naming the console page (details.consoleUrl), because a bearer credential is what agentPublishes person keeps from deciding. ' +
    "planFingerprint must be the approval's (another: 409 stale_read, nothing decided). Approving carries the call out as the credential that asked, against its ceiling, " +
    'naming the person who approved, bound to the planFingerprint: anything changed since the request makes the approval stale (409 stale_read, nothing done). ' +
    'An approval that is not waiting (decided, expired after APPROVAL_TTL_HOURS, stale) answers 409 conflict.',
  uses: ['config', 'events', 'invoke'],
  async handler(ctx, input) {
    const p = ctx.principal;
    if (!isSession(p) || !isOwnerOrAdmin(p))
      throw new ServiceError(
        'forbidden',
        'An approval is decided by an organization owner or admin signed in to the console, not with an API key or an OAuth token.',
        {
          role: p.role,
        },
      );
    const a = await loadApproval(ctx, input.approvalId);
    if (a.requestedByUserId === p.userId)
      throw new ServiceError(
        'forbidden',
        `You are the person behind ${a.requestedBy}, which asked for this approval: another owner or admin decides it.`,
        null,
      );
    if (a.status !== 'waiting') throw new ServiceError('conflict', `Approval ${a.id} is ${a.status}: it can no longer be decided.`, { status: a.status });
    if (input.planFingerprint !== a.planFingerprint)
      throw new ServiceError(
        'stale_read',
        `planFingerprint ${input.planFingerprint.slice(0, 12)}... is not this approval's plan: nothing was decided. Look at the approval again.`,
        {
          planFingerprint: a.planFingerprint,
        },
      );
    const now = ctx.now();
    const decided = {
      status: (input.decision === 'approve' ? 'approved' : 'rejected') as ApprovalStatus,
      decidedBy: p.actorLabel.slice(0, 255),
      decidedByUserId: p.userId,
      decidedAt: now,
      comment: input.comment ?? null,
    };
    // One conditional statement: decided meanwhile, or expired, is not decided again.
    if ((await decideApproval(ctx.db, a.id, decided)) !== 1) {
      const again = await loadApproval(ctx, a.id);
      throw new ServiceError('conflict', `Approval ${a.id} is ${again.status}: it can no longer be decided.`, { status: again.status });
    }
    let status = decided.status;
    if (status === 'approved') {
      let result: Record<string, unknown>;
      try {
        result = await carryOut(ctx, a, p.actorLabel);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'stale_read') {
          // Nothing was carried out: the approval waits again for a decision.
          await reopenApproval(ctx.db, a.id);
          throw err;
        }
        status = 'stale';
        await settleApproval(ctx.db, a.id, 'stale');
        await announce(ctx, a, status, decided.decidedBy);
        throw new ServiceError(
          'stale_read',
          `${staleWhat(a)} changed since the approval was asked for: nothing was done, and the approval is stale. Ask the agent to prepare it again.`,
          { ...(err.details as Record<string, unknown> | null), approvalId: a.id, status: 'stale' },
        );
      }
      await settleApproval(ctx.db, a.id, 'approved', result);
    }
    await announce(ctx, a, status, decided.decidedBy);
    return approvalView(await loadApproval(ctx, a.id), ctx.config.baseUrl);
  },
});

/** What a stale approval's plan was of, in words. */
function staleWhat(a: Approval): string {
  if (a.kind === 'publish') return `Launch ${a.launchId}`;
  if (a.kind === 'live_budget' || a.kind === 'live_status') return `Node ${a.nodeId} of launch ${a.launchId} (or its launch)`;
  if (a.kind === 'resume') return 'The automation';
  if (a.kind === 'arm_workflow') return 'The workflow or the plans of its launch and budget steps';
  return "The review gate's plan";
}

/** Carries the approved request out as the credential that asked (its scopes and ceiling), naming the person who approved; answers what it answered. */
async function carryOut(ctx: ServiceContext<'invoke'>, a: Approval, approver: string): Promise<Record<string, unknown>> {
  const asker =
    a.requestedByApiKeyId !== null
      ? await principalOfApiKey(ctx.db, a.organizationId, a.requestedByApiKeyId, ctx.now())
      : await principalOfGrant(ctx.db, a.organizationId, a.requestedByGrantId!);
  const principal: Principal = {
    ...asker,
    approvedBy: approver,
    approvedPlan: a.planFingerprint,
    actorLabel: `${asker.actorLabel} (approved by ${approver})`.slice(0, 255),
  };
  const answered = await ctx.invoke(a.operation, a.input, { principal, idempotencyKey: `approval-${a.id}` });
  return (answered.body ?? {}) as Record<string, unknown>;
}

/** The approval.decided event (chat hears of it from the outbox: chat.ts). */
async function announce(ctx: ServiceContext<'events'>, a: Approval, status: ApprovalStatus, decidedBy: string): Promise<void> {
  await ctx.events.emit(ctx.db, {
    organizationId: a.organizationId,
    brandId: a.brandId,
    type: 'approval.decided',
    data: decidedData(a, status, decidedBy),
  });
}

export const operations: OperationDefinition[] = [getOrganizationSettings, updateOrganizationSettings, listApprovals, getApproval];

/** The decision, which only the console invokes (as the signed-in person). */
export const internalOperations: OperationDefinition[] = [decide];
