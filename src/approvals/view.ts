// An approval as every surface answers it, with the console address where a person decides it.

import type { Approval, ApprovalStatus } from './store.js';

export function approvalPath(brandId: number, approvalId: number): string {
  return `/console/brands/${brandId}/approvals/${approvalId}`;
}

export function approvalView(a: Approval, baseUrl: string, mayDecide = false) {
  const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());
  return {
    approvalId: a.id,
    kind: a.kind,
    brandId: a.brandId,
    ...(a.launchId !== null ? { launchId: String(a.launchId) } : {}),
    ...(a.nodeId !== null ? { nodeId: a.nodeId } : {}),
    plan: a.plan,
    planFingerprint: a.planFingerprint,
    amounts: a.amounts,
    requestedBy: a.requestedBy,
    requestedAt: iso(a.requestedAt)!,
    expiresAt: iso(a.expiresAt)!,
    status: a.status,
    ...(a.decidedBy !== null ? { decidedBy: a.decidedBy } : {}),
    ...(a.decidedAt !== null ? { decidedAt: iso(a.decidedAt) } : {}),
    ...(a.comment !== null ? { comment: a.comment } : {}),
    ...(a.result !== null ? { result: a.result } : {}),
    consoleUrl: `${baseUrl}${approvalPath(a.brandId, a.id)}`,
    mayDecide,
  };
}

export type ApprovalView = ReturnType<typeof approvalView>;

/** The approval.decided event's data. */
export function decidedData(a: Approval, status: ApprovalStatus, decidedBy: string) {
  return {
    brandId: a.brandId,
    approvalId: a.id,
    status: status as 'approved' | 'rejected' | 'stale' | 'expired',
    kind: a.kind,
    decidedBy: decidedBy.slice(0, 255),
    launchId: a.launchId === null ? null : String(a.launchId),
    nodeId: a.nodeId,
  };
}
