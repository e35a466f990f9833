// /console/brands/{brandId}/approvals/{approvalId}: an approval an agent's money path waits for
// (get-approval), with what approving spends (per campaign its name, account, objective and budget;
// per account the amount and what it counts against the ceiling) and, for an owner or admin who is
// not the person behind the requesting credential, Approve, then Confirm naming the amount
// (decide-approval), or Reject. The page posts the fingerprint it drew: a launch changed since makes
// the approval stale and nothing is published.

import { ServiceError } from '../../../src/errors.js';
import type { ApprovalView } from '../../../src/approvals/view.js';
import { badge, esc, hidden, table } from '../layout.js';
import { money, usd, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';

const ID = /^[1-9]\d{0,15}$/;

/** The approvals of a brand that still wait, for the reviews page's list. */
export async function waitingApprovals(req: ConsoleRequest, brand: BrandScope): Promise<string> {
  const answer = await req.call<{ approvals: ApprovalView[] }>(brand.principal, 'list-approvals', { brandId: brand.id, limit: 50 });
  const waiting = answer.approvals.filter((a) => a.status === 'waiting');
  if (!waiting.length) return '';
  const rows = waiting.map((a) => [
    `<a href="/console/brands/${brand.id}/approvals/${a.approvalId}">Approval ${a.approvalId}</a>`,
    esc(a.kind),
    esc(a.launchId ?? ''),
    esc(a.requestedBy),
    usd(total(a)),
  ]);
  const head = ['Approval', 'Kind', 'Launch', 'Asked by', 'Counts against the ceiling'];
  return `<h2>Approvals waiting for a person</h2>${table({ id: 'approvals', head, rows, empty: 'None.', numeric: [4] })}`;
}

const total = (a: ApprovalView) => a.amounts.reduce((sum, x) => sum + x.countedUsdCents, 0);

/** The page of one approval; `confirming` draws the Confirm step after Approve. */
export async function approvalPage(
  req: ConsoleRequest,
  brand: BrandScope,
  idText: string,
  message?: { notice?: string; error?: string; status?: number; confirming?: boolean },
): Promise<Page> {
  if (!ID.test(idText)) throw new ServiceError('not_found', 'That approval was not found.', null);
  const a = await req.call<ApprovalView>(brand.principal, 'get-approval', { brandId: brand.id, approvalId: Number(idText) });
  const plan = a.plan as { title?: string; plan?: { campaigns?: Array<Record<string, any>> }; warnings?: Array<{ message: string }> };
  const campaigns = (plan.plan?.campaigns ?? []).map((c) => [
    esc(c.name ?? c.nodeId),
    esc(c.accountId ?? ''),
    esc(c.objective ?? ''),
    c.budget ? `${money(c.budget.amountMinorUnits, currencyOf(a, c.accountId))} ${c.budget.period === 'daily' ? 'a day' : 'in all'}` : 'on its ad sets',
  ]);
  const accounts = a.amounts.map((x) => [esc(x.accountId), money(x.amountMinorUnits, x.currency), usd(x.countedUsdCents)]);
  const base = `/console/brands/${brand.id}/approvals/${a.approvalId}`;
  const amount = usd(total(a));
  const form = (fields: Record<string, string | number>, buttons: string) =>
    `<form method="post" action="${base}" class="decide">${hidden({ csrf_token: req.viewer.csrf, plan_fingerprint: a.planFingerprint, ...fields })}${buttons}</form>`;
  const decide = !a.mayDecide
    ? a.status === 'waiting'
      ? `<p class="why-not" role="note"><strong>You cannot decide this one.</strong> It is decided by an organization owner or admin other than the person behind ${esc(a.requestedBy)}.</p>`
      : ''
    : message?.confirming
      ? form(
          { decision: 'approve', confirmed: 'yes' },
          `<p class="confirm" role="alert">Publish launch ${esc(a.launchId ?? '')} now, spending ${amount} against ${esc(a.requestedBy)}'s ceiling?</p><button type="submit" id="confirm">Confirm: publish for ${amount}</button>`,
        )
      : form(
          {},
          `<button type="submit" name="decision" value="approve" id="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger" id="reject">Reject</button>`,
        );
  const body = `<h1>Approval ${a.approvalId}</h1>
<p class="lead">${esc(a.requestedBy)} asked to ${esc(a.kind)} launch ${esc(a.launchId ?? '')}${plan.title ? ` “${esc(plan.title)}”` : ''}. ${badge(a.status)}</p>
<p class="muted">Asked ${when(a.requestedAt, brand.timezone)} · expires ${when(a.expiresAt, brand.timezone)}${a.decidedBy ? ` · decided by <strong class="decided-by">${esc(a.decidedBy)}</strong>` : ''} · plan ${esc(a.planFingerprint.slice(0, 12))}…</p>
<h2>What it spends</h2>${table({ id: 'approval-campaigns', head: ['Campaign', 'Ad account', 'Objective', 'Budget'], rows: campaigns, empty: 'No campaign.' })}
${table({ id: 'approval-amounts', head: ['Ad account', 'Amount', 'Counts against the ceiling'], rows: accounts, empty: 'Nothing counted.', numeric: [1, 2] })}
<p>Counts against the ceiling: <strong class="amount">${amount}</strong></p>
${(plan.warnings ?? []).map((w) => `<p class="warning">${esc(w.message)}</p>`).join('')}${decide}`;
  return { title: `Approval ${a.approvalId}`, body, notice: message?.notice, error: message?.error, status: message?.status };
}

/** The notice a redirect after a decision names (only the page's own words, never the query's). */
export function approvalNotice(key: string): string | undefined {
  return key === 'approved' ? 'Approved: published as planned.' : key === 'rejected' ? 'Rejected: nothing was published.' : undefined;
}

function currencyOf(a: ApprovalView, accountId: string | undefined): string {
  return a.amounts.find((x) => x.accountId === accountId)?.currency ?? 'USD';
}

/** The Approve (then Confirm) or Reject form: decide-approval as the person, naming the plan the page drew. */
export async function decideApprovalForm(
  req: ConsoleRequest,
  brand: BrandScope,
  idText: string,
  body: Record<string, unknown>,
): Promise<{ redirect: string } | Page> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const decision = text(body.decision);
  if (!ID.test(idText)) throw new ServiceError('not_found', 'That approval was not found.', null);
  if (decision !== 'approve' && decision !== 'reject')
    return approvalPage(req, brand, idText, { status: 400, error: 'Choose Approve or Reject: nothing was decided.' });
  // Approve asks once more on the page, naming the amount.
  if (decision === 'approve' && text(body.confirmed) !== 'yes') return approvalPage(req, brand, idText, { confirming: true });
  try {
    await req.call(brand.principal, 'decide-approval', {
      brandId: brand.id,
      approvalId: Number(idText),
      decision,
      planFingerprint: text(body.plan_fingerprint),
    });
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'stale_read' || err.code === 'conflict'))
      return approvalPage(req, brand, idText, { status: 409, error: `Nothing was published: ${err.message}` });
    throw err;
  }
  return { redirect: `/console/brands/${brand.id}/approvals/${idText}?notice=${decision === 'approve' ? 'approved' : 'rejected'}` };
}
