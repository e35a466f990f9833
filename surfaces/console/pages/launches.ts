// The launches of a brand (list-launches) and one launch's page: its tree (get-launch), the issues
// its preview reports (preview-launch, each named by node and setting in a sentence) and its publishes
// (list-activity on the launch: when, by whom, the result and the amounts; the platform's ids from the
// tree). Publishing is not started here: agents and integrations publish, people decide at reviews.

import { ServiceError } from '../../../src/errors.js';
import { badge, esc, select, table } from '../layout.js';
import { count, money, usd, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import { one, type Page } from './page.js';
import { LIVE_NOTICES, liveControls } from './live.js';

interface LaunchSummary {
  id: string;
  title: string | null;
  accountId: string | null;
  status: string;
  statusReason: string | null;
  counts: { campaigns: number; adSets: number; ads: number };
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

interface TreeNode {
  id: string;
  nodeType: 'campaign' | 'adset' | 'ad';
  status: 'draft' | 'live';
  accountId: string | null;
  properties: Record<string, any>;
  platformId: string | null;
}

interface LaunchTree extends LaunchSummary {
  description: string | null;
  campaigns: Array<{ node: TreeNode; adSets: Array<{ node: TreeNode; ads: TreeNode[] }> }>;
}

export interface Preview {
  status: string;
  valid: boolean;
  issues: Array<{ field: string; message: string }>;
  warnings: Array<{ field: string; message: string; source?: string }>;
  counts: { campaigns: number; adSets: number; ads: number };
  planFingerprint: string;
  budget: {
    accounts: Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number | null }>;
    countedUsdCents: number | null;
  };
}

const STATUSES = ['draft', 'publishing', 'published', 'publish_failed'];

const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

/** The account whose currency and time zone a launch (or one of its campaigns) is shown in. */
function accountOf(brand: BrandScope, accountId: string | null) {
  return brand.accounts.find((a) => a.accountId === accountId) ?? brand.accounts[0] ?? { currency: brand.currency, timezone: brand.timezone };
}

export async function launchesPage(req: ConsoleRequest, brand: BrandScope, query: Record<string, unknown>): Promise<Page> {
  const status = one(query.status);
  const search = one(query.search).trim();
  const cursor = one(query.cursor);
  const input: Record<string, unknown> = { brandId: brand.id, limit: 50 };
  if (status) input.status = status;
  if (search) input.search = search;
  if (cursor) input.cursor = cursor;
  const answer = await req.call<{ batches: LaunchSummary[]; nextCursor: string | null }>(brand.principal, 'list-launches', input);
  const base = `/console/brands/${brand.id}`;
  const rows = answer.batches.map((l) => {
    const acc = accountOf(brand, l.accountId);
    return [
      `<a href="${base}/launches/${esc(l.id)}">${esc(l.title ?? `Launch ${l.id}`)}</a>`,
      `${badge(l.status)}${l.statusReason ? `<br><span class="muted">${esc(l.statusReason)}</span>` : ''}`,
      count(l.counts.campaigns),
      count(l.counts.adSets),
      count(l.counts.ads),
      l.accountId ? `<code>${esc(l.accountId)}</code>` : '<span class="muted">per campaign</span>',
      when(l.updatedAt, acc.timezone),
    ];
  });
  const keep = new URLSearchParams({ ...(status ? { status } : {}), ...(search ? { search } : {}) });
  const next = answer.nextCursor
    ? `<div class="pager"><a href="${base}/launches?${new URLSearchParams([...keep, ['cursor', answer.nextCursor]])}" rel="next">Older launches</a></div>`
    : '';
  const body = `<h1>Launches</h1><p class="lead">Every launch of ${esc(brand.name)}, newest first. Agents and integrations build and publish them; open one to see its tree, its issues and its publishes.</p>
<form method="get" class="filters" action="${base}/launches">
${select({ id: 'status', name: 'status', label: 'Status', value: status, options: [['', 'Any status'], ...STATUSES.map((s) => [s, s.replace('_', ' ')] as const)] })}
<div class="field"><label for="search">Title contains</label><input id="search" name="search" type="search" maxlength="200" value="${esc(search)}"></div>
<button type="submit">Show</button></form>
${table({
  id: 'launches',
  head: ['Title', 'Status', 'Campaigns', 'Ad sets', 'Ads', 'Account', 'Last change'],
  rows,
  numeric: [2, 3, 4],
  empty:
    status || search
      ? 'No launch matches these filters. Clear them to see every launch.'
      : 'No launches yet. An agent or integration creates one (create-launch over MCP, REST or the CLI); it shows here at once.',
})}${next}`;
  return { title: 'Launches', body };
}

const LEVEL_WORD: Record<string, string> = { campaigns: 'Campaign', adSets: 'Ad set', ads: 'Ad' };

/** An issue of the preview as a sentence naming the node (by its name) and the setting. */
export function issueSentence(issue: { field: string; message: string }, names: Map<string, string>): string {
  const m = /^(campaigns|adSets|ads)\[([^\]]+)\]\.?(.*)$/.exec(issue.field);
  const message = issue.message.replace(/\.$/, '');
  if (!m) return `${issue.field}: ${message}.`;
  const name = names.get(m[2]);
  return `${LEVEL_WORD[m[1]]} ${name ? `“${name}”` : m[2]}: ${m[3] ? `${m[3]} ` : ''}${message}.`;
}

function budgetText(props: Record<string, any>, currency: string): string {
  const b = props.budget;
  if (!b || typeof b !== 'object') return '';
  if (typeof b.dailyAmount === 'number') return `${money(b.dailyAmount, currency)} a day`;
  if (typeof b.lifetimeAmount === 'number') return `${money(b.lifetimeAmount, currency)} lifetime`;
  return '';
}

interface Creative {
  id: number;
  name: string;
  type: string;
  width: number;
  height: number;
}

function nodeLine(n: TreeNode, level: string, currency: string, creatives: Map<number, Creative>, brandId: number, controls: string): string {
  const p = n.properties;
  const creative = typeof p.creativeId === 'number' ? creatives.get(p.creativeId) : undefined;
  const thumb = creative
    ? creative.type !== 'image'
      ? `<span class="muted">${esc(creative.type)} ${creative.width}×${creative.height}</span>`
      : `<img class="thumb" src="/console/brands/${brandId}/creatives/${creative.id}" width="48" height="48" alt="Creative ${esc(creative.name)}, ${creative.width}×${creative.height} ${esc(creative.type)}">`
    : '';
  const budget = budgetText(p, currency);
  return `<div class="node" id="node-${esc(n.id)}"><span class="level">${level}</span>${thumb}<strong>${esc(p.name ?? n.id)}</strong>${badge(n.status)}${
    typeof p.status === 'string' ? badge(p.status) : ''
  }${budget ? `<span class="budget">${budget}</span>` : ''}${n.platformId ? `<span class="muted">platform id <code>${esc(n.platformId)}</code></span>` : ''}${controls}</div>`;
}

const PUBLISH_ACTIONS: Record<string, string> = {
  'launch.published': 'Published',
  'launch.publish_failed': 'Publish failed',
  'launch.rolled_back': 'Rolled back after a failure',
  'launch.publish_abandoned': 'Publish ended, what was left paused',
  'launch.publish_resumed': 'Interrupted publish resumed',
  'workflow.review_approved': 'Approved at a review',
  'workflow.review_rejected': 'Rejected at a review',
};

interface Activity {
  userName: string;
  action: string;
  when: string;
  accountId?: string | null;
  amountMinorUnits?: number;
  currency?: string;
  countedUsdCents?: number;
}

export async function launchPage(req: ConsoleRequest, brand: BrandScope, launchId: string, noticeKey = ''): Promise<Page> {
  if (!/^[1-9]\d{0,15}$/.test(launchId)) throw new ServiceError('not_found', `Launch ${launchId} was not found.`, null);
  const p = brand.principal;
  const [tree, preview] = await Promise.all([
    req.call<LaunchTree>(p, 'get-launch', { brandId: brand.id, launchId: Number(launchId) }),
    req.call<Preview>(p, 'preview-launch', { brandId: brand.id, launchId: Number(launchId) }),
  ]);
  const acc = accountOf(brand, tree.accountId);
  const names = new Map<string, string>();
  const creativeIds = new Set<number>();
  for (const c of tree.campaigns) {
    names.set(c.node.id, c.node.properties.name ?? c.node.id);
    for (const s of c.adSets) {
      names.set(s.node.id, s.node.properties.name ?? s.node.id);
      for (const a of s.ads) {
        names.set(a.id, a.properties.name ?? a.id);
        if (typeof a.properties.creativeId === 'number') creativeIds.add(a.properties.creativeId);
      }
    }
  }
  const creatives = new Map<number, Creative>();
  await Promise.all(
    [...creativeIds].map(async (id) => {
      try {
        creatives.set(id, await req.call<Creative>(p, 'get-creative', { brandId: brand.id, creativeId: id }));
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'not_found') throw err;
      }
    }),
  );
  const treeHtml = tree.campaigns.length
    ? `<div class="tree" id="tree"><ul>${tree.campaigns
        .map((c) => {
          const cur = accountOf(brand, c.node.accountId ?? tree.accountId).currency;
          const line = (n: TreeNode, level: string) =>
            nodeLine(n, level, cur, creatives, brand.id, liveControls(brand, req.viewer.csrf, String(tree.id), n, cur));
          return `<li>${line(c.node, 'Campaign')}<ul>${c.adSets
            .map((s) => `<li>${line(s.node, 'Ad set')}<ul>${s.ads.map((a) => `<li>${line(a, 'Ad')}</li>`).join('')}</ul></li>`)
            .join('')}</ul></li>`;
        })
        .join('')}</ul></div>`
    : '<p class="empty" id="tree-empty">This launch has no campaign yet. An agent adds campaigns, ad sets and ads with create-node.</p>';

  const issues = preview.issues.length
    ? `<ul id="issues">${preview.issues.map((i) => `<li>${esc(issueSentence(i, names))}</li>`).join('')}</ul>`
    : `<p id="no-issues">${tree.status === 'published' ? 'Published: nothing to check.' : 'No issues: the launch would publish as it stands.'}</p>`;
  const warnings = preview.warnings.length
    ? `<h3>Warnings</h3><ul id="warnings">${preview.warnings
        .map((i) => `<li>${esc(issueSentence(i, names))}${i.source ? ` <span class="source">Source: ${esc(i.source)}</span>` : ''}</li>`)
        .join('')}</ul>`
    : '';
  const money_ = preview.budget.accounts.length
    ? table({
        id: 'launch-money',
        head: ['Account', 'Budget', 'Counts against a ceiling'],
        rows: preview.budget.accounts.map((a) => [`<code>${esc(a.accountId)}</code>`, money(a.amountMinorUnits, a.currency), usd(a.countedUsdCents)]),
        numeric: [1, 2],
        empty: '',
      })
    : '';

  // Publishes: the launch's own entries in the activity log (a launch-level entry names the launch id).
  let publishes: string;
  const accountForLog = tree.accountId ?? (brand.accounts.length === 1 ? brand.accounts[0].accountId : null);
  if (accountForLog) {
    const log = await req.call<{ activities: Activity[] }>(p, 'list-activity', {
      brandId: brand.id,
      accountId: accountForLog,
      entityId: String(tree.id),
      entityType: 'unknown',
      days: 90,
      limit: 100,
    });
    const rows = log.activities
      .filter((e) => e.action in PUBLISH_ACTIONS)
      .map((e) => [
        when(e.when, acc.timezone),
        esc(e.userName),
        esc(PUBLISH_ACTIONS[e.action]),
        e.amountMinorUnits !== undefined && e.currency
          ? `${money(e.amountMinorUnits, e.currency)}${e.countedUsdCents !== undefined ? ` (counted ${usd(e.countedUsdCents)})` : ''}`
          : '',
      ]);
    const ids = tree.campaigns
      .filter((c) => c.node.platformId)
      .map((c) => `${esc(c.node.properties.name ?? c.node.id)}: <code>${esc(c.node.platformId)}</code>`);
    publishes = `${table({
      id: 'publishes',
      head: ['When', 'By', 'Result', 'Amount'],
      rows,
      empty:
        tree.status === 'published'
          ? 'Published, but its publish is not in the activity log of the last 90 days.'
          : 'Not published yet. Agents and integrations publish (launch-campaign); a person decides at a review.',
    })}${ids.length ? `<p class="muted" id="platform-ids">Campaigns on the platform: ${ids.join(', ')}</p>` : ''}`;
  } else {
    publishes = '<p class="empty">This launch spans several ad accounts: see each account in the activity log.</p>';
  }

  const body = `<h1>${esc(tree.title ?? `Launch ${tree.id}`)}</h1>
<p class="lead">${badge(tree.status)} ${tree.statusReason ? esc(tree.statusReason) : ''} ${tree.description ? esc(tree.description) : ''}</p>
<dl class="facts"><dt>Account</dt><dd>${tree.accountId ? `<code>${esc(tree.accountId)}</code>` : 'each campaign names its own'}</dd>
<dt>Counts</dt><dd>${plural(tree.counts.campaigns, 'campaign')}, ${plural(tree.counts.adSets, 'ad set')}, ${plural(tree.counts.ads, 'ad')}</dd>
<dt>Created</dt><dd>${when(tree.createdAt, acc.timezone)}</dd><dt>Last change</dt><dd>${when(tree.updatedAt, acc.timezone)}</dd>
${tree.publishedAt ? `<dt>Published</dt><dd>${when(tree.publishedAt, acc.timezone)}</dd>` : ''}</dl>
<h2>Tree</h2>${treeHtml}
<h2>Issues</h2>${issues}${warnings}
<h2>Money</h2>${money_ || '<p class="muted">No budget set yet.</p>'}
<h2>Publishes</h2>${publishes}
<p><a href="/console/brands/${brand.id}/launches">All launches</a> · <a href="/console/brands/${brand.id}/activity?entityType=unknown">Activity</a></p>`;
  return { title: tree.title ?? `Launch ${tree.id}`, body, notice: LIVE_NOTICES[noticeKey] ?? null };
}
