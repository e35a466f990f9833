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
    esc(a.launchId ?? a.nodeId ?? ''),
    esc(a.requestedBy),
    usd(total(a)),
  ]);
  const head = ['Approval', 'Kind', 'Launch', 'Asked by', 'Counts against the ceiling'];
  return `<h2>Approvals waiting for a person</h2>${table({ id: 'approvals', head, rows, empty: 'None.', numeric: [4] })}`;
}

const total = (a: ApprovalView) => a.amounts.reduce((sum, x) => sum + x.countedUsdCents, 0);

type Budget = { period: string; amountMinorUnits: number };
type Change = { launchId: string; nodeId: string; level: string; field: 'budget' | 'status'; from: Budget | string | null; to: Budget | string };
type Amount = ApprovalView['amounts'][number];

/** A budget in words: `$50.00 a day`, `$700.00 in all`. */
const budgetText = (b: Budget, currency: string) => `${money(b.amountMinorUnits, currency)} ${b.period === 'daily' ? 'a day' : 'in all'}`;

/** What approving does and spends, by kind (console.md "Reviews and approvals"): a sentence and the tables that show it. */
function whatItDoes(a: ApprovalView): { lead: string; confirm: string; body: string } {
  const plan = a.plan as Record<string, any>;
  const currency = a.amounts[0]?.currency ?? 'USD';
  const named = (name: unknown, id: string) => (typeof name === 'string' && name ? `“${esc(name)}” (${esc(id)})` : esc(id));
  switch (a.kind) {
    case 'live_budget': {
      const c = plan.change as Change;
      const from = c.from && typeof c.from === 'object' ? budgetText(c.from, currency) : 'none';
      const to = budgetText(c.to as Budget, currency);
      return {
        lead: `set the budget of the live ${esc(c.level.toLowerCase())} ${named(plan.name, c.nodeId)} of launch ${esc(c.launchId)} from <strong class="from">${from}</strong> to <strong class="to">${to}</strong>`,
        confirm: `Set the budget of ${esc(c.nodeId)} to ${to} now`,
        body: '',
      };
    }
    case 'live_status': {
      const c = plan.change as Change;
      const budget = plan.budget as (Budget & { nodeId: string }) | undefined;
      const spends =
        c.to === 'ACTIVE' && budget
          ? ` It then spends its budget again: <strong class="spends">${budgetText(budget, currency)}</strong>${budget.nodeId !== c.nodeId ? ` (the budget of ${esc(budget.nodeId)})` : ''}; a status change counts nothing against the ceiling.`
          : c.to === 'PAUSED'
            ? ' It then stops spending.'
            : '';
      return {
        lead: `set the live ${esc(c.level)} ${named(plan.name, c.nodeId)} of launch ${esc(c.launchId)} from <strong class="from">${esc(String(c.from))}</strong> to <strong class="to">${esc(String(c.to))}</strong>.${spends}`,
        confirm: `Set ${esc(c.nodeId)} ${esc(String(c.to))} now`,
        body: '',
      };
    }
    case 'resume': {
      const r = plan.rule as Record<string, any>;
      const rows = [
        ['Automation', named(r.automationName, r.automationId !== undefined ? String(r.automationId) : 'new')],
        ['Ad account', esc(r.accountId)],
        ['Watches', `${esc(r.level)}s: ${r.objectIds ? esc((r.objectIds as string[]).join(', ')) : 'every live one'}`],
        ['When', esc((r.conditions as Array<Record<string, unknown>>).map((c) => `${c.metric} ${c.operator} ${c.value} (${c.window})`).join(' and '))],
        ['Does', `${esc(r.action)}, then resumes what it paused once its conditions clear (resumeWhenClear)`],
        ['Runs', `${esc(r.frequency)}, mode ${esc(r.mode)}, ${esc(r.status)}`],
      ];
      const verb = plan.operation === 'run-automation' ? 'run' : plan.operation === 'create-automation' ? 'create' : 'save';
      return {
        lead: `${verb} an automation that resumes paused objects: each one it resumes spends its budget again (what that comes to is known only when it runs)`,
        confirm: `${verb[0].toUpperCase()}${verb.slice(1)} the automation now`,
        body: `<h2>The rule</h2>${table({ id: 'approval-rule', head: ['', ''], rows, empty: 'No rule.' })}`,
      };
    }
    case 'arm_workflow': {
      const bound = (plan.boundPlans ?? []) as Array<{ nodeId: string; launchId: string | null; planFingerprint: string | null; amounts: Amount[] }>;
      const rows = bound.map((b) => [
        esc(b.nodeId),
        esc(b.launchId ?? 'named when a run starts'),
        b.amounts.map((x) => money(x.amountMinorUnits, x.currency)).join(', ') || 'none known',
        usd(b.amounts.reduce((sum, x) => sum + x.countedUsdCents, 0)),
      ]);
      return {
        lead: `arm the workflow ${named(plan.workflowName, String(plan.workflowId))} (version ${esc(String(plan.version))}): a run its trigger starts carries out its launch and budget steps, each only on the plan bound here`,
        confirm: `Arm the workflow now`,
        body: `<h2>Steps it arms</h2>${table({ id: 'approval-steps', head: ['Step', 'Launch', 'Amount', 'Counts against the ceiling'], rows, empty: 'No money step.', numeric: [2, 3] })}`,
      };
    }
    case 'review': {
      const step = (plan.stepPlan ?? {}) as {
        kind?: string;
        stepNodeId?: string;
        launchId?: string | null;
        counts?: { campaigns: number; adSets: number; ads: number } | null;
      };
      const counts = step.counts ? ` (${step.counts.campaigns} campaigns, ${step.counts.adSets} ad sets, ${step.counts.ads} ads)` : '';
      return {
        lead: `approve the review gate ${esc(String(plan.nodeId))} of run ${esc(String(plan.executionId))} of the workflow ${named(plan.workflowName, String(plan.workflowId))}: its ${esc(step.kind ?? 'money')} step ${esc(step.stepNodeId ?? '')} then goes on with launch ${esc(step.launchId ?? 'made by an earlier step')}${counts}`,
        confirm: 'Approve the review gate now',
        body: '',
      };
    }
    default: {
      const p = plan as { title?: string; plan?: { campaigns?: Array<Record<string, any>> } };
      const campaigns = (p.plan?.campaigns ?? []).map((c) => [
        esc(c.name ?? c.nodeId),
        esc(c.accountId ?? ''),
        esc(c.objective ?? ''),
        c.budget ? budgetText(c.budget, currencyOf(a, c.accountId)) : 'on its ad sets',
      ]);
      return {
        lead: `publish launch ${esc(a.launchId ?? '')}${p.title ? ` “${esc(p.title)}”` : ''}`,
        confirm: `Publish launch ${esc(a.launchId ?? '')} now`,
        body: `<h2>Campaigns</h2>${table({ id: 'approval-campaigns', head: ['Campaign', 'Ad account', 'Objective', 'Budget'], rows: campaigns, empty: 'No campaign.' })}`,
      };
    }
  }
}

/** The page of one approval; `confirming` draws the Confirm step after Approve. */
export async function approvalPage(
  req: ConsoleRequest,
  brand: BrandScope,
  idText: string,
  message?: { notice?: string; error?: string; status?: number; confirming?: boolean },
): Promise<Page> {
  if (!ID.test(idText)) throw new ServiceError('not_found', 'That approval was not found.', null);
  const a = await req.call<ApprovalView>(brand.principal, 'get-approval', { brandId: brand.id, approvalId: Number(idText) });
  const plan = a.plan as { warnings?: Array<{ message: string }> };
  const does = whatItDoes(a);
  const accounts = a.amounts.map((x) => [esc(x.accountId), money(x.amountMinorUnits, x.currency), usd(x.countedUsdCents)]);
  const base = `/console/brands/${brand.id}/approvals/${a.approvalId}`;
  const amount = usd(total(a));
  const spending = a.amounts.length ? `, spending ${a.amounts.map((x) => money(x.amountMinorUnits, x.currency)).join(' and ')}` : '';
  const form = (fields: Record<string, string | number>, buttons: string) =>
    `<form method="post" action="${base}" class="decide">${hidden({ csrf_token: req.viewer.csrf, plan_fingerprint: a.planFingerprint, ...fields })}${buttons}</form>`;
  const decide = !a.mayDecide
    ? a.status === 'waiting'
      ? `<p class="why-not" role="note"><strong>You cannot decide this one.</strong> It is decided by an organization owner or admin other than the person behind ${esc(a.requestedBy)}.</p>`
      : ''
    : message?.confirming
      ? form(
          { decision: 'approve', confirmed: 'yes' },
          `<p class="confirm" role="alert">${does.confirm}${spending}, counting ${amount} against ${esc(a.requestedBy)}'s ceiling?</p><button type="submit" id="confirm">Confirm: ${a.kind === 'publish' ? 'publish' : 'approve'} for ${amount}</button>`,
        )
      : form(
          {},
          `<button type="submit" name="decision" value="approve" id="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger" id="reject">Reject</button>`,
        );
  const body = `<h1>Approval ${a.approvalId}</h1>
<p class="lead" id="approval-does">${esc(a.requestedBy)} asked to ${does.lead}. ${badge(a.status)}</p>
<p class="muted">Asked ${when(a.requestedAt, brand.timezone)} · expires ${when(a.expiresAt, brand.timezone)}${a.decidedBy ? ` · decided by <strong class="decided-by">${esc(a.decidedBy)}</strong>` : ''} · plan ${esc(a.planFingerprint.slice(0, 12))}…</p>
<h2>What it spends</h2>${does.body}
${table({ id: 'approval-amounts', head: ['Ad account', 'Amount', 'Counts against the ceiling'], rows: accounts, empty: 'Nothing known ahead.', numeric: [1, 2] })}
<p>Counts against the ceiling: <strong class="amount">${amount}</strong></p>
${(plan.warnings ?? []).map((w) => `<p class="warning">${esc(w.message)}</p>`).join('')}${decide}`;
  return { title: `Approval ${a.approvalId}`, body, notice: message?.notice, error: message?.error, status: message?.status };
}

/** The notice a redirect after a decision names (only the page's own words, never the query's). */
export function approvalNotice(key: string): string | undefined {
  return key === 'approved' ? 'Approved: carried out as planned.' : key === 'rejected' ? 'Rejected: nothing was done.' : undefined;
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
      return approvalPage(req, brand, idText, { status: 409, error: `Nothing was done: ${err.message}` });
    throw err;
  }
  return { redirect: `/console/brands/${brand.id}/approvals/${idText}?notice=${decision === 'approve' ? 'approved' : 'rejected'}` };
}
