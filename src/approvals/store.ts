// The approvals table and the organization's `agent_publishes` setting (paths.md "Approvals by a person").

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export type ApprovalStatus = 'waiting' | 'approved' | 'rejected' | 'expired' | 'stale';

/** What approving does, one kind per money path (gate.ts). */
export type ApprovalKind = 'publish' | 'live_budget' | 'live_status' | 'resume' | 'arm_workflow' | 'review';

export interface Approval {
  id: number;
  organizationId: number;
  brandId: number;
  kind: ApprovalKind;
  operation: string;
  input: Record<string, unknown>;
  launchId: number | null;
  nodeId: string | null;
  plan: Record<string, unknown>;
  planFingerprint: string;
  amounts: Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number }>;
  requestedByKind: 'api_key' | 'user';
  requestedByApiKeyId: number | null;
  requestedByGrantId: number | null;
  requestedByUserId: number;
  requestedBy: string;
  requestedAt: number;
  expiresAt: number;
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedByUserId: number | null;
  decidedAt: number | null;
  comment: string | null;
  /** What carrying it out answered (an approved approval), for the agent that asked. */
  result: Record<string, unknown> | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toApproval(r: Record<string, any>): Approval {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    kind: r.kind,
    operation: r.operation,
    input: JSON.parse(r.input),
    launchId: num(r.launch_id),
    nodeId: r.node_id ?? null,
    plan: JSON.parse(r.plan),
    planFingerprint: r.plan_fingerprint,
    amounts: JSON.parse(r.amounts),
    requestedByKind: r.requested_by_kind,
    requestedByApiKeyId: num(r.requested_by_api_key_id),
    requestedByGrantId: num(r.requested_by_grant_id),
    requestedByUserId: Number(r.requested_by_user_id),
    requestedBy: r.requested_by,
    requestedAt: Number(r.requested_at),
    expiresAt: Number(r.expires_at),
    status: r.status,
    decidedBy: r.decided_by ?? null,
    decidedByUserId: num(r.decided_by_user_id),
    decidedAt: num(r.decided_at),
    comment: r.comment ?? null,
    result: r.result ? JSON.parse(r.result) : null,
  };
}

export async function insertApproval(db: Db, a: Omit<Approval, 'id'>): Promise<number> {
  const [id] = await db('approvals').insert({
    organization_id: a.organizationId,
    brand_id: a.brandId,
    kind: a.kind,
    operation: a.operation,
    input: JSON.stringify(a.input),
    launch_id: a.launchId,
    node_id: a.nodeId,
    plan: JSON.stringify(a.plan),
    plan_fingerprint: a.planFingerprint,
    amounts: JSON.stringify(a.amounts),
    requested_by_kind: a.requestedByKind,
    requested_by_api_key_id: a.requestedByApiKeyId,
    requested_by_grant_id: a.requestedByGrantId,
    requested_by_user_id: a.requestedByUserId,
    requested_by: a.requestedBy,
    requested_at: a.requestedAt,
    expires_at: a.expiresAt,
    status: a.status,
  });
  return Number(id);
}

/**
 * An approval as of `now`: one still waiting past its time reads as expired (it can no longer be
 * decided, decideApproval's condition says so too) until the expire-approvals job records it and
 * announces it.
 */
function asOf(a: Approval, now: number): Approval {
  return a.status === 'waiting' && a.expiresAt <= now ? { ...a, status: 'expired' } : a;
}

/** The brand's approval `id`, as of `now`. */
export async function findApproval(db: Db, brandId: number, id: number, now: number): Promise<Approval | null> {
  const row = await db('approvals').where({ id, brand_id: brandId }).first();
  return row ? asOf(toApproval(row), now) : null;
}

/** The brand's approvals, newest first, from before `beforeId` when given, as of `now`. */
export async function approvalsOf(db: Db, brandId: number, beforeId: number | null, limit: number, now: number): Promise<Approval[]> {
  const q = db('approvals').where({ brand_id: brandId }).orderBy('id', 'desc').limit(limit);
  if (beforeId !== null) q.where('id', '<', beforeId);
  return (await q).map((r: Record<string, any>) => asOf(toApproval(r), now));
}

/** Up to `limit` approvals still waiting at `now` past their time, oldest first (the expire-approvals job's work). */
export async function dueToExpire(db: Db, now: number, limit: number): Promise<Approval[]> {
  const rows = await db('approvals').where({ status: 'waiting' }).where('expires_at', '<=', now).orderBy('expires_at').limit(limit);
  return rows.map(toApproval);
}

/** Expires approval `id` in one conditional statement: 1 when it did, 0 when it was decided (or expired) meanwhile or is not due. */
export async function expireApproval(db: Db, id: number, now: number): Promise<number> {
  return db('approvals').where({ id, status: 'waiting' }).where('expires_at', '<=', now).update({ status: 'expired' });
}

/** Decides a waiting approval, in one conditional statement: 1 when it did, 0 when it was no longer waiting. */
export async function decideApproval(
  db: Db,
  id: number,
  d: { status: ApprovalStatus; decidedBy: string; decidedByUserId: number; decidedAt: number; comment: string | null },
): Promise<number> {
  return db('approvals')
    .where({ id, status: 'waiting' })
    .where('expires_at', '>', d.decidedAt)
    .update({ status: d.status, decided_by: d.decidedBy, decided_by_user_id: d.decidedByUserId, decided_at: d.decidedAt, comment: d.comment });
}

/** Opens a claimed approval again (its carrying out failed for a passing reason): it waits for a decision. */
export async function reopenApproval(db: Db, id: number): Promise<void> {
  await db('approvals').where({ id }).update({ status: 'waiting', decided_by: null, decided_by_user_id: null, decided_at: null, comment: null });
}

/** Sets the final status of an approval already claimed by decideApproval (approved, then carried out or found stale), with what carrying it out answered. */
export async function settleApproval(db: Db, id: number, status: ApprovalStatus, result: Record<string, unknown> | null = null): Promise<void> {
  await db('approvals')
    .where({ id })
    .update({ status, result: result === null ? null : JSON.stringify(result) });
}
