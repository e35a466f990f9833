// The approvals table and the organization's `agent_publishes` setting (paths.md "Approvals by a person").

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export type ApprovalStatus = 'waiting' | 'approved' | 'rejected' | 'expired' | 'stale';

export interface Approval {
  id: number;
  organizationId: number;
  brandId: number;
  kind: string;
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

/** Waiting approvals past their time become expired (they move nothing), then the brand's approval `id` is read. */
export async function findApproval(db: Db, brandId: number, id: number, now: number): Promise<Approval | null> {
  await expireDue(db, brandId, now);
  const row = await db('approvals').where({ id, brand_id: brandId }).first();
  return row ? toApproval(row) : null;
}

/** The brand's approvals, newest first, from before `beforeId` when given. */
export async function approvalsOf(db: Db, brandId: number, beforeId: number | null, limit: number, now: number): Promise<Approval[]> {
  await expireDue(db, brandId, now);
  const q = db('approvals').where({ brand_id: brandId }).orderBy('id', 'desc').limit(limit);
  if (beforeId !== null) q.where('id', '<', beforeId);
  return (await q).map(toApproval);
}

async function expireDue(db: Db, brandId: number, now: number): Promise<void> {
  await db('approvals').where({ brand_id: brandId, status: 'waiting' }).where('expires_at', '<=', now).update({ status: 'expired' });
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

/** Sets the final status of an approval already claimed by decideApproval (approved, then carried out or found stale). */
export async function settleApproval(db: Db, id: number, status: ApprovalStatus): Promise<void> {
  await db('approvals').where({ id }).update({ status });
}
