// Live controls on a published launch's page: Pause (at once), Resume and a budget change for each
// live campaign, ad set and ad the person may change. Resume and a budget change first show what they
// will spend ("Resume Spring - US: up to $50.00 a day on act_1001") and are carried out only when the
// person presses Confirm on that page; the confirmation binds that exact change with the core's own
// change fingerprint (src/launches/live-change.ts: the change, the node now, the launch's plan now),
// which Confirm sends to the operation, so a node or launch that changed meanwhile is shown again
// instead of changed. Everything goes through update-node and edit-live-campaign as the person:
// their scope and the platform's answer decide, and a refusal comes back as a sentence on the page.

import { ServiceError, httpStatusOf } from '../../../src/errors.js';
import { esc, hidden } from '../layout.js';
import { money } from '../format.js';
import { exponentOf } from '../../../src/money/currencies.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';
import { liveChangePrincipal } from '../../../src/access/person.js';
import { budgetChange, liveChangeFingerprint, statusChange } from '../../../src/launches/live-change.js';

export interface LiveNode {
  id: string;
  nodeType: 'campaign' | 'adset' | 'ad';
  status: 'draft' | 'live';
  parentId?: string | null;
  accountId: string | null;
  properties: Record<string, any>;
  platformId: string | null;
  updatedAt?: string;
}

interface Tree {
  id: string;
  title: string | null;
  status: string;
  accountId: string | null;
  campaigns: Array<{ node: LiveNode; adSets: Array<{ node: LiveNode; ads: LiveNode[] }> }>;
}

type Budget = { period: 'daily' | 'lifetime'; amount: number };

const LEVEL = { campaign: 'campaign', adset: 'ad set', ad: 'ad' } as const;

function budgetOf(props: Record<string, any>): Budget | null {
  const b = props?.budget;
  if (!b || typeof b !== 'object') return null;
  if (typeof b.dailyAmount === 'number') return { period: 'daily', amount: b.dailyAmount };
  if (typeof b.lifetimeAmount === 'number') return { period: 'lifetime', amount: b.lifetimeAmount };
  return null;
}

const budgetWords = (b: Budget, currency: string) => `${money(b.amount, currency)} ${b.period === 'daily' ? 'a day' : 'in all'}`;

/** May the person change live objects here? Owners and admins may (with `publish` for those calls only); members may not. */
export function mayChangeLive(brand: BrandScope): boolean {
  return liveChangePrincipal(brand.principal) !== null;
}

/** Every node of the tree with what spends for it: its campaign and, for an ad, its ad set. */
function locate(tree: Tree, nodeId: string): { node: LiveNode; campaign: LiveNode; adSets: LiveNode[] } | null {
  for (const c of tree.campaigns) {
    if (c.node.id === nodeId) return { node: c.node, campaign: c.node, adSets: c.adSets.map((s) => s.node) };
    for (const s of c.adSets) {
      if (s.node.id === nodeId) return { node: s.node, campaign: c.node, adSets: [s.node] };
      for (const a of s.ads) if (a.id === nodeId) return { node: a, campaign: c.node, adSets: [s.node] };
    }
  }
  return null;
}

/** What resuming the node may spend: the campaign's budget, else its ad sets' (those under it), summed per period. */
function spendOnResume(where: { campaign: LiveNode; adSets: LiveNode[] }): Budget[] {
  const own = budgetOf(where.campaign.properties);
  if (own) return [own];
  const budgets = where.adSets.map((s) => budgetOf(s.properties)).filter((b): b is Budget => b !== null);
  return (['daily', 'lifetime'] as const)
    .map((period) => ({ period, amount: budgets.filter((b) => b.period === period).reduce((sum, b) => sum + b.amount, 0) }))
    .filter((b) => budgets.some((x) => x.period === b.period));
}

/** The change a form asks for, checked and described from the launch as it is now. */
interface Change {
  nodeId: string;
  action: 'pause' | 'resume' | 'budget';
  node: LiveNode;
  name: string;
  accountId: string;
  currency: string;
  from: string;
  to: string;
  budget: Budget | null;
  /** Binds the change to the node as it is now: a different node, value or state draws another. */
  fingerprint: string;
  sentence: string;
}

function currencyOf(brand: BrandScope, accountId: string | null): string {
  return brand.accounts.find((a) => a.accountId === accountId)?.currency ?? brand.currency;
}

function describeChange(brand: BrandScope, tree: Tree, launchPlan: string, body: Record<string, unknown>): Change | string {
  const nodeId = typeof body.node_id === 'string' ? body.node_id : '';
  const action = body.action;
  if (action !== 'pause' && action !== 'resume' && action !== 'budget') return 'Choose Pause, Resume or a budget change; nothing was changed.';
  const where = locate(tree, nodeId);
  if (!where || where.node.status !== 'live' || !where.node.platformId)
    return 'That campaign, ad set or ad is not live on the platform (it may still be a draft), so nothing was changed.';
  const node = where.node;
  const accountId = node.accountId ?? tree.accountId ?? '';
  const currency = currencyOf(brand, accountId);
  const name = String(node.properties.name ?? node.id);
  const status = String(node.properties.status ?? 'ACTIVE');
  let from = status;
  let to: string;
  let budget: Budget | null = null;
  let sentence: string;
  if (action === 'pause' || action === 'resume') {
    to = action === 'pause' ? 'PAUSED' : 'ACTIVE';
    if (status === to) return `“${name}” is already ${to === 'PAUSED' ? 'paused' : 'active'}; nothing was changed.`;
    const spends = spendOnResume(where);
    sentence =
      action === 'pause'
        ? `Pause ${LEVEL[node.nodeType]} “${name}” on ${accountId}: it stops spending.`
        : `Resume ${LEVEL[node.nodeType]} “${name}”: ${spends.length ? `up to ${spends.map((b) => budgetWords(b, currency)).join(' and ')}` : 'its budget'} on ${accountId}.`;
  } else {
    const current = budgetOf(node.properties);
    if (node.nodeType === 'ad' || !current) return `“${name}” carries no budget of its own: change the budget where it is set (its campaign or ad sets).`;
    const amount = Number(
      String(body.amount ?? '')
        .trim()
        .replace(/,/g, ''),
    );
    if (!Number.isFinite(amount) || amount <= 0) return 'Give the new budget as an amount, for example 75.00; nothing was changed.';
    const exponent = exponentOf(currency) ?? 2;
    const minor = Math.round(amount * 10 ** exponent);
    if (Math.abs(minor / 10 ** exponent - amount) > 1e-9) return `Give the budget with at most ${exponent} decimals in ${currency}; nothing was changed.`;
    budget = { period: current.period, amount: minor };
    from = String(current.amount);
    to = String(minor);
    if (minor === current.amount) return `The budget of “${name}” is already ${budgetWords(current, currency)}; nothing was changed.`;
    sentence = `Change the budget of ${LEVEL[node.nodeType]} “${name}” on ${accountId} from ${budgetWords(current, currency)} to ${budgetWords(budget, currency)}.`;
  }
  // The core's own fingerprint of this change (src/launches/live-change.ts): the change, the node as it
  // is now and the launch's plan now (so a budget raised anywhere in it, say, draws the change again).
  // The operation checks it when Confirm sends it: the console keeps no rule of its own.
  const row = { id: node.id, launchId: Number(tree.id), nodeType: node.nodeType, properties: node.properties };
  const change =
    action === 'budget'
      ? budgetChange(row, { level: node.nodeType === 'campaign' ? 'CAMPAIGN' : 'ADSET', budgetType: budget!.period, amount: budget!.amount })
      : statusChange(row, to);
  const fingerprint = liveChangeFingerprint(change, launchPlan);
  return { nodeId, action, node, name, accountId, currency, from, to, budget, fingerprint, sentence };
}

/** The controls of one live node on the launch page (none for a person who may not change it). */
export function liveControls(brand: BrandScope, csrf: string, launchId: string, node: LiveNode, currency: string): string {
  if (node.status !== 'live' || !node.platformId || !mayChangeLive(brand)) return '';
  const action = `/console/brands/${brand.id}/launches/${esc(launchId)}/live`;
  const status = String(node.properties.status ?? 'ACTIVE');
  const form = (kind: string, label: string, extra = '') =>
    `<form method="post" action="${action}" class="inline-form">${hidden({ csrf_token: csrf, node_id: node.id, action: kind })}${extra}<button type="submit" class="${kind === 'pause' ? 'danger' : 'secondary'} small" aria-label="${esc(`${label} ${node.properties.name ?? node.id}`)}">${label}</button></form>`;
  const parts = [status === 'PAUSED' ? form('resume', 'Resume') : form('pause', 'Pause')];
  const budget = budgetOf(node.properties);
  if (budget && node.nodeType !== 'ad') {
    const id = `budget-${node.id}`;
    parts.push(
      form(
        'budget',
        'Change budget',
        `<label for="${esc(id)}" class="visually-hidden">New ${budget.period} budget of ${esc(node.properties.name ?? node.id)}</label><input id="${esc(id)}" name="amount" inputmode="decimal" size="8" required placeholder="${esc((budget.amount / 10 ** (exponentOf(currency) ?? 2)).toFixed(exponentOf(currency) ?? 2))}">`,
      ),
    );
  }
  return `<span class="live-controls">${parts.join('')}</span>`;
}

async function treeOf(req: ConsoleRequest, brand: BrandScope, launchId: string): Promise<Tree> {
  if (!/^[1-9]\d{0,15}$/.test(launchId)) throw new ServiceError('not_found', `Launch ${launchId} was not found.`, null);
  return req.call<Tree>(brand.principal, 'get-launch', { brandId: brand.id, launchId: Number(launchId) });
}

const back = (brand: BrandScope, launchId: string) => `<p><a href="/console/brands/${brand.id}/launches/${esc(launchId)}">Back to the launch</a></p>`;

function confirmPage(req: ConsoleRequest, brand: BrandScope, launchId: string, c: Change, note?: string): Page {
  const fields = hidden({
    csrf_token: req.viewer.csrf,
    node_id: c.nodeId,
    action: c.action,
    amount: c.budget ? (c.budget.amount / 10 ** (exponentOf(c.currency) ?? 2)).toFixed(exponentOf(c.currency) ?? 2) : null,
    confirm: c.fingerprint,
  });
  const body = `<h1>Confirm: ${esc(c.action === 'budget' ? 'change a live budget' : 'resume')}</h1>
${note ? `<div class="error" role="alert" id="changed">${esc(note)}</div>` : ''}
<p class="lead" id="change">${esc(c.sentence)}</p>
<p>This changes what runs on the ad platform now${c.action === 'budget' ? ', and the new amount counts against your publish ceiling' : ''}. Nothing changes until you press Confirm.</p>
<form method="post" action="/console/brands/${brand.id}/launches/${esc(launchId)}/live" class="decide">${fields}<button type="submit" id="confirm">Confirm</button></form>
${back(brand, launchId)}`;
  return { title: 'Confirm the change', body };
}

/**
 * A live control's post: Pause is carried out at once; Resume and a budget change answer the
 * confirmation page, and with its `confirm` fingerprint (the same change, the node unchanged) are
 * carried out. A refusal (scope, ceiling, the platform) is a sentence on the page.
 */
export async function changeLive(
  req: ConsoleRequest,
  brand: BrandScope,
  launchId: string,
  body: Record<string, unknown>,
): Promise<Page | { redirect: string }> {
  const tree = await treeOf(req, brand, launchId);
  const { planFingerprint } = await req.call<{ planFingerprint: string }>(brand.principal, 'preview-launch', { brandId: brand.id, launchId: Number(launchId) });
  const c = describeChange(brand, tree, planFingerprint, body);
  const launchUrl = `/console/brands/${brand.id}/launches/${launchId}`;
  if (typeof c === 'string')
    return {
      title: 'Nothing was changed',
      status: 400,
      body: `<h1>Nothing was changed</h1><div class="error" role="alert" id="refusal">${esc(c)}</div>${back(brand, launchId)}`,
    };
  const confirm = typeof body.confirm === 'string' ? body.confirm : '';
  const changed = () =>
    ({
      ...confirmPage(
        req,
        brand,
        launchId,
        c,
        'It changed since the confirmation was drawn: this is the change as it is now. Confirm again if it is still what you want.',
      ),
      status: 409,
    }) as Page;
  if (c.action !== 'pause' && !confirm) return confirmPage(req, brand, launchId, c);
  // A change drawn before the node or its launch changed is drawn again, not made.
  if (c.action !== 'pause' && confirm !== c.fingerprint) return changed();
  // Resume and a budget change name the fingerprint confirmed: the core makes only that change.
  const bound = c.action === 'pause' ? {} : { planFingerprint: confirm };
  // A member's post goes through as her own principal: the operation refuses it (403 insufficient_scope).
  const principal = liveChangePrincipal(brand.principal) ?? brand.principal;
  try {
    if (c.action === 'budget') {
      await req.call(
        principal,
        'edit-live-campaign',
        {
          brandId: brand.id,
          launchId: Number(launchId),
          nodeId: c.nodeId,
          level: c.node.nodeType === 'campaign' ? 'CAMPAIGN' : 'ADSET',
          budgetType: c.budget!.period,
          amount: c.budget!.amount,
          ...bound,
        },
        `console:${c.fingerprint}`,
      );
    } else {
      await req.call(principal, 'update-node', { brandId: brand.id, launchId: Number(launchId), nodeId: c.nodeId, properties: { status: c.to }, ...bound });
    }
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code === 'internal_error') throw err;
    if (err.code === 'stale_read') return changed();
    return {
      title: 'Nothing was changed',
      status: httpStatusOf[err.code as keyof typeof httpStatusOf] ?? 400,
      body: `<h1>Nothing was changed</h1><p class="lead">${esc(c.sentence)}</p><div class="error" role="alert" id="refusal">${esc(err.message)} <span class="muted">(${esc(err.code)})</span></div>${back(brand, launchId)}`,
    };
  }
  const done = c.action === 'pause' ? 'paused' : c.action === 'resume' ? 'resumed' : 'budget';
  return { redirect: `${launchUrl}?notice=${done}#node-${encodeURIComponent(c.nodeId)}` };
}

export const LIVE_NOTICES: Record<string, string> = {
  paused: 'Paused on the ad platform.',
  resumed: 'Resumed on the ad platform.',
  budget: 'The new budget is set on the ad platform.',
};
