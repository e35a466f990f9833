// /console/brands/{brandId}/reviews: every run of the brand waiting at a review gate
// (list-workflow-reviews), each with the plan an approval would publish and the buttons Approve and
// Reject (review-workflow-step), or, for the run's author, why they cannot decide. The plan is the
// run's own record of it (the review node's `plan`); after an approval refused because the launch
// changed, the plan as it is now, which the refusal carries (409 stale_read, details.plan). The page
// posts the fingerprint it drew, so what a person approves is what they saw.

import { ServiceError } from '../../../src/errors.js';
import type { StepPlan } from '../../../src/workflows/plans.js';
import { badge, esc, hidden, table } from '../layout.js';
import { count, money, usd, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';
import { issueSentence, type Preview } from './launches.js';
import { waitingApprovals } from './approvals.js';

interface ExecutionNode {
  nodeId: string;
  kind?: string;
  status: string;
  result: Record<string, any> | null;
  error: { code: string; message: string } | null;
  /** The plan the gate's approval binds to, recorded by the run (null when no money step follows); absent on services that do not record it. */
  plan?: RecordedPlan | null;
}

/** A money step's plan as the core records it (the review node's `plan`, or a refusal's details.plan). */
type RecordedPlan = StepPlan;

export interface Review {
  workflowId: number;
  workflowName: string;
  executionId: number;
  nodeId: string;
  nodeName: string;
  waitingSince: string | null;
  deadlineAt: string | null;
  startedBy: string;
  nextSteps: Array<{ nodeId: string; kind: string; name: string; launchId: string | null }>;
  mayDecide: boolean;
  reason: string | null;
  execution: { status: string; nodes: ExecutionNode[]; trigger?: Record<string, unknown> };
}

/** The plan shown beside a gate: what the approval lets go on and the money it moves. */
export interface PlanView {
  /** `run`: the execution's own record; `current`: the plan as it is now, after a refused approval. */
  source: 'run' | 'current' | 'none';
  kind: string | null;
  stepName: string | null;
  launchId: string | null;
  launchTitle: string | null;
  planFingerprint: string | null;
  counts: { campaigns: number; adSets: number; ads: number } | null;
  accounts: Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number | null }>;
  countedUsdCents: number | null;
  problem: string | null;
  /** The launch's campaigns as they are now: what a person needs to see to decide what it spends. */
  campaigns: CampaignSummary[];
  /** The launch preview's warnings, as sentences. */
  warnings: string[];
}

interface CampaignSummary {
  name: string;
  accountId: string | null;
  objective: string | null;
  budget: string | null;
  schedule: string | null;
  targeting: string | null;
  placements: string | null;
  ads: Array<{ name: string; headline: string | null; text: string | null; link: string | null; creativeId: number | null }>;
}

interface TreeNode {
  id: string;
  accountId: string | null;
  properties: Record<string, any>;
}

/** A budget as a person reads it: "$50.00 a day", "$700.00 in all". */
export function budgetPhrase(props: Record<string, any>, currency: string): string | null {
  const b = props?.budget;
  if (!b || typeof b !== 'object') return null;
  if (typeof b.dailyAmount === 'number') return `${money(b.dailyAmount, currency)} a day`;
  if (typeof b.lifetimeAmount === 'number') return `${money(b.lifetimeAmount, currency)} in all`;
  return null;
}

function summarize(
  brand: BrandScope,
  fallbackAccount: string | null,
  tree: { campaigns: Array<{ node: TreeNode; adSets: Array<{ node: TreeNode; ads: TreeNode[] }> }> },
): CampaignSummary[] {
  return tree.campaigns.map((c) => {
    const accountId = c.node.accountId ?? fallbackAccount;
    const currency = brand.accounts.find((a) => a.accountId === accountId)?.currency ?? brand.currency;
    const p = c.node.properties;
    const setBudgets = c.adSets.map((s) => budgetPhrase(s.node.properties, currency)).filter(Boolean);
    const first = c.adSets[0]?.node.properties ?? {};
    const t = first.targeting ?? {};
    const ages = t.ageMin || t.ageMax ? `ages ${t.ageMin ?? 18}-${t.ageMax ?? '65+'}` : 'all ages';
    const countries = Array.isArray(t.countries) && t.countries.length ? t.countries.join(', ') : null;
    const schedule = [p.startTime ?? first.startTime, p.endTime ?? first.endTime].some(Boolean)
      ? `${p.startTime ?? first.startTime ?? 'now'} to ${p.endTime ?? first.endTime ?? 'no end'}`
      : null;
    const positions = first.placements?.positions;
    return {
      name: String(p.name ?? c.node.id),
      accountId,
      objective: p.objective ?? null,
      budget: budgetPhrase(p, currency) ?? (setBudgets.length ? `ad sets: ${setBudgets.join(', ')}` : null),
      schedule,
      targeting: [countries, ages].filter(Boolean).join('; ') || null,
      placements: Array.isArray(positions) && positions.length ? positions.join(', ') : 'automatic',
      ads: c.adSets.flatMap((s) =>
        s.ads.map((a) => ({
          name: String(a.properties.name ?? a.id),
          headline: a.properties.headline ?? null,
          text: a.properties.primaryText ?? null,
          link: a.properties.linkUrl ?? null,
          creativeId: typeof a.properties.creativeId === 'number' ? a.properties.creativeId : null,
        })),
      ),
    };
  });
}

/**
 * The plan of a waiting gate: the run's record of it, or `current`, the plan as it is now that a
 * refused approval carried back (the page then asks again on that one).
 */
export async function planOf(req: ConsoleRequest, brand: BrandScope, r: Review, current: RecordedPlan | null = null): Promise<PlanView> {
  const gate = r.execution.nodes.find((n) => n.nodeId === r.nodeId);
  const p = current ?? gate?.plan ?? null;
  if (!p)
    return {
      source: 'none',
      kind: null,
      stepName: null,
      launchId: null,
      launchTitle: null,
      planFingerprint: null,
      counts: null,
      accounts: [],
      countedUsdCents: null,
      problem: null,
      campaigns: [],
      warnings: [],
    };
  let launchTitle: string | null = null;
  let campaigns: CampaignSummary[] = [];
  let warnings: string[] = [];
  if (p.launchId) {
    try {
      const tree = await req.call<{
        title: string | null;
        accountId: string | null;
        campaigns: Array<{ node: TreeNode; adSets: Array<{ node: TreeNode; ads: TreeNode[] }> }>;
      }>(brand.principal, 'get-launch', { brandId: brand.id, launchId: Number(p.launchId) });
      launchTitle = tree.title;
      // A budget step changes one node: the whole launch is not what it spends.
      if (p.kind === 'launch') {
        campaigns = summarize(brand, tree.accountId, tree);
        // The preview's warnings (a rule only a third party reports, say): a person sees them before deciding.
        const preview = await req.call<Preview>(brand.principal, 'preview-launch', { brandId: brand.id, launchId: Number(p.launchId) });
        const names = new Map(
          tree.campaigns.flatMap((c) => [c.node, ...c.adSets.flatMap((s) => [s.node, ...s.ads])]).map((n) => [n.id, String(n.properties.name ?? n.id)]),
        );
        warnings = preview.warnings.map((w) => issueSentence(w, names));
      }
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'not_found') throw err;
    }
  }
  return {
    source: current ? 'current' : 'run',
    kind: p.kind,
    stepName: r.nextSteps.find((s) => s.nodeId === p.stepNodeId)?.name ?? p.stepNodeId,
    launchId: p.launchId,
    launchTitle,
    planFingerprint: p.planFingerprint,
    counts: p.counts,
    accounts: p.accounts,
    countedUsdCents: p.countedUsdCents,
    problem: p.problem ?? null,
    campaigns,
    warnings,
  };
}

function campaignsHtml(brand: BrandScope, plan: PlanView): string {
  if (!plan.campaigns.length) return '';
  const line = (label: string, value: string | null) => (value ? `<dt>${label}</dt><dd>${esc(value)}</dd>` : '');
  return `<div class="plan-campaigns">${plan.campaigns
    .map(
      (
        c,
      ) => `<section class="plan-campaign"><h3>Campaign “${esc(c.name)}”</h3><dl class="facts">${line('Account', c.accountId)}${line('Objective', c.objective)}${line('Budget', c.budget)}${line('Schedule', c.schedule)}${line('Audience', c.targeting)}${line('Placements', c.placements)}</dl>
<ul class="plan-ads">${c.ads
        .map(
          (a) =>
            `<li>${a.creativeId ? `<img class="thumb" src="/console/brands/${brand.id}/creatives/${a.creativeId}" width="48" height="48" alt="Creative of ad ${esc(a.name)}">` : ''}<strong>${esc(a.name)}</strong>${a.headline ? `: “${esc(a.headline)}”` : ''}${a.text ? ` <span class="muted">${esc(a.text)}</span>` : ''}${a.link ? ` <code>${esc(a.link)}</code>` : ''}</li>`,
        )
        .join('')}</ul></section>`,
    )
    .join('')}</div>`;
}

function planHtml(brand: BrandScope, plan: PlanView, r: Review): string {
  const base = `/console/brands/${brand.id}`;
  const after = r.nextSteps.length ? r.nextSteps.map((s) => `${esc(s.name)} <span class="muted">(${esc(s.kind)})</span>`).join(', ') : 'nothing: the run ends';
  if (plan.source === 'none') return `<p class="plan plan-none">Approving publishes nothing and moves no money. The run goes on to: ${after}.</p>`;
  const launch = plan.launchId
    ? `<a href="${base}/launches/${esc(plan.launchId)}">${esc(plan.launchTitle ?? `Launch ${plan.launchId}`)}</a>`
    : 'a launch named when the run gets there';
  if (plan.kind !== 'launch' && !plan.accounts.length)
    return `<p class="plan">Approving lets the step ${esc(plan.stepName ?? '')} (${esc(plan.kind ?? '')}) act on ${launch}. The run goes on to: ${after}.</p>`;
  const rows = plan.accounts.map((a) => [`<code>${esc(a.accountId)}</code>`, money(a.amountMinorUnits, a.currency), usd(a.countedUsdCents)]);
  const totals = plan.accounts.length > 1 ? [['Total', '', usd(plan.countedUsdCents)]] : [];
  return `<div class="plan" data-plan-source="${plan.source}"><p>Approving ${plan.kind === 'budget' ? 'changes a live budget of' : 'publishes'} ${launch}${
    plan.counts
      ? `: <strong>${count(plan.counts.campaigns)}</strong> ${plan.counts.campaigns === 1 ? 'campaign' : 'campaigns'}, <strong>${count(plan.counts.adSets)}</strong> ad ${plan.counts.adSets === 1 ? 'set' : 'sets'}, <strong>${count(plan.counts.ads)}</strong> ${plan.counts.ads === 1 ? 'ad' : 'ads'}`
      : ''
  }. The run then goes on to: ${after}.</p>
${campaignsHtml(brand, plan)}${plan.warnings.length ? `<div class="plan-warnings"><h3>Warnings</h3><ul>${plan.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>` : ''}
${table({ id: `plan-${r.executionId}-${r.nodeId}`, head: ['Account', 'Amount', 'Counts against the run’s ceiling'], rows: [...rows, ...totals], numeric: [1, 2], empty: '<span class="muted">No budget in this plan.</span>' })}
${plan.problem ? `<div class="error" role="note"><strong>The amounts of this plan could not be read:</strong> ${esc(plan.problem)}</div>` : ''}
${plan.source === 'current' ? '<p class="muted">The plan as the launch is now.</p>' : ''}</div>`;
}

export async function reviewsPage(
  req: ConsoleRequest,
  brand: BrandScope,
  message?: { notice?: string; error?: string; status?: number; current?: { executionId: number; nodeId: string; plan: RecordedPlan | null } },
): Promise<Page> {
  const answer = await req.call<{ reviews: Review[] }>(brand.principal, 'list-workflow-reviews', { brandId: brand.id, limit: 50 });
  const base = `/console/brands/${brand.id}`;
  const items: string[] = [];
  for (const r of answer.reviews) {
    const asked = message?.current && message.current.executionId === r.executionId && message.current.nodeId === r.nodeId ? message.current.plan : null;
    const plan = await planOf(req, brand, r, asked);
    const runLink = `${base}/workflows/${r.workflowId}/runs/${r.executionId}`;
    const decide = r.mayDecide
      ? `<form method="post" action="${base}/reviews/${r.executionId}" class="decide">${hidden({
          csrf_token: req.viewer.csrf,
          workflow_id: r.workflowId,
          node_id: r.nodeId,
          plan_fingerprint: plan.planFingerprint,
        })}
<div class="field"><label for="comment-${r.executionId}-${esc(r.nodeId)}">Comment</label><textarea id="comment-${r.executionId}-${esc(r.nodeId)}" name="comment" maxlength="2000" rows="2"></textarea></div>
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger">Reject</button></form>`
      : `<p class="why-not" role="note"><strong>You cannot decide this one.</strong> ${esc(r.reason ?? '')}</p>`;
    items.push(`<article class="card review" id="review-${r.executionId}-${esc(r.nodeId)}" data-execution-id="${r.executionId}">
<h2><a href="${runLink}">${esc(r.workflowName)}</a>, run ${r.executionId}</h2>
<p class="muted">Gate “${esc(r.nodeName)}” ${badge(r.execution.status)} · started by <strong class="started-by">${esc(r.startedBy)}</strong> · waiting since ${when(r.waitingSince, brand.timezone)}${
      r.deadlineAt ? ` · times out ${when(r.deadlineAt, brand.timezone)}` : ''
    }</p>
${planHtml(brand, plan, r)}${decide}</article>`);
  }
  const body = `<h1>Reviews</h1><p class="lead">Runs of ${esc(brand.name)}'s workflows waiting for a person's decision. Approving publishes the plan shown; a launch changed since this page was drawn is shown again for a new decision.</p>
${await waitingApprovals(req, brand)}${items.length ? items.join('') : '<p class="empty" id="no-reviews">Nothing waits for a review. A workflow with a review step stops here when a run reaches it; you will see it on this page.</p>'}`;
  return { title: 'Reviews', body, notice: message?.notice, error: message?.error, status: message?.status };
}

const ID = /^[1-9]\d{0,15}$/;

/**
 * The Approve or Reject form of a gate: review-workflow-step as the person. An approval names the
 * plan the page drew; the operation refuses a changed plan (409 stale_read, carrying the plan as it
 * is now), and the page is drawn again on that plan, nothing decided.
 */
export async function decideReview(
  req: ConsoleRequest,
  brand: BrandScope,
  executionIdText: string,
  body: Record<string, unknown>,
): Promise<{ redirect: string } | Page> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const workflowIdText = text(body.workflow_id);
  const nodeId = text(body.node_id);
  const decision = text(body.decision);
  const comment = text(body.comment).trim();
  const drawn = text(body.plan_fingerprint);
  if (!ID.test(executionIdText) || !ID.test(workflowIdText) || !nodeId) throw new ServiceError('not_found', 'That review was not found.', null);
  if (decision !== 'approve' && decision !== 'reject')
    return reviewsPage(req, brand, { status: 400, error: 'Choose Approve or Reject: the form was sent without a decision, and nothing was decided.' });
  const executionId = Number(executionIdText);
  const workflowId = Number(workflowIdText);
  // Approve asks once more, naming what the approval spends; only the confirmation's post decides.
  if (decision === 'approve' && text(body.confirmed) !== 'yes') return confirmApproval(req, brand, { executionId, workflowId, nodeId, comment, drawn });
  const input: Record<string, unknown> = { brandId: brand.id, workflowId, executionId, nodeId, decision, ...(comment ? { comment } : {}) };
  // The approval publishes the plan this page drew: review-workflow-step answers 409 stale_read when the launch changed since.
  if (decision === 'approve' && drawn) input.planFingerprint = drawn;
  try {
    await req.call(brand.principal, 'review-workflow-step', input);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'stale_read') {
      const now = (err.details as { plan?: RecordedPlan | null } | null)?.plan ?? null;
      return changed(req, brand, { executionId, nodeId, plan: now });
    }
    throw err;
  }
  return { redirect: `/console/brands/${brand.id}/workflows/${workflowId}/runs/${executionId}?notice=${decision === 'approve' ? 'approved' : 'rejected'}` };
}

/** The approval's confirmation: what it spends, as drawn (the plan whose fingerprint the form carried), and Confirm. */
async function confirmApproval(
  req: ConsoleRequest,
  brand: BrandScope,
  o: { executionId: number; workflowId: number; nodeId: string; comment: string; drawn: string },
): Promise<Page> {
  const answer = await req.call<{ reviews: Review[] }>(brand.principal, 'list-workflow-reviews', { brandId: brand.id, limit: 50 });
  const r = answer.reviews.find((x) => x.executionId === o.executionId && x.nodeId === o.nodeId);
  if (!r) throw new ServiceError('not_found', 'That review is no longer waiting: it was decided or timed out.', null);
  const plan = await planOf(req, brand, r);
  let accounts = plan.accounts;
  let counted = plan.countedUsdCents;
  // The form may carry the plan as it is now (drawn after a refused approval): its amounts are the preview's.
  if (plan.kind === 'launch' && plan.launchId && o.drawn && o.drawn !== plan.planFingerprint) {
    const now = await req.call<Preview>(brand.principal, 'preview-launch', { brandId: brand.id, launchId: Number(plan.launchId) });
    if (now.planFingerprint === o.drawn) {
      accounts = now.budget.accounts;
      counted = now.budget.countedUsdCents;
    }
  }
  const spends = plan.campaigns.length
    ? plan.campaigns.map((c) => `“${c.name}” ${c.budget ?? 'with no budget'}${c.accountId ? ` on ${c.accountId}` : ''}`).join(', ')
    : accounts.map((a) => `${money(a.amountMinorUnits, a.currency)} on ${a.accountId}`).join(', ');
  const what =
    plan.source === 'none'
      ? 'It publishes nothing and moves no money.'
      : `It ${plan.kind === 'budget' ? 'sets a live budget of' : 'publishes'} ${plan.launchTitle ? `“${plan.launchTitle}”` : 'the launch'}${spends ? `: ${spends}` : ''}${
          counted !== null ? `, counting ${usd(counted)} against the run’s ceiling` : ''
        }.`;
  const base = `/console/brands/${brand.id}`;
  const body = `<h1>Confirm the approval</h1>
<p class="lead" id="approval-summary">Approve “${esc(r.nodeName)}” of ${esc(r.workflowName)}, run ${r.executionId}. ${esc(what)}</p>
<p>Nothing is approved until you press Confirm.</p>
<form method="post" action="${base}/reviews/${r.executionId}" class="decide">${hidden({
    csrf_token: req.viewer.csrf,
    workflow_id: o.workflowId,
    node_id: o.nodeId,
    plan_fingerprint: o.drawn || null,
    comment: o.comment || null,
    decision: 'approve',
    confirmed: 'yes',
  })}<button type="submit" id="confirm-approval">Confirm</button></form>
<p><a href="${base}/reviews">Back to the reviews</a></p>`;
  return { title: 'Confirm the approval', body };
}

/** The page drawn again after a refused approval, the gate's plan as the launch is now. */
function changed(req: ConsoleRequest, brand: BrandScope, current: { executionId: number; nodeId: string; plan: RecordedPlan | null }): Promise<Page> {
  return reviewsPage(req, brand, {
    current,
    status: 409,
    error: 'The launch changed since this page was drawn, so nothing was approved. Below is the plan as it is now: approve it again if it is right.',
  });
}
