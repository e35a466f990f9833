// /console/brands/{brandId}: the brand's ad accounts (list-ad-accounts) with today's spend and
// results on each (get-overview, datePreset today, in the account's currency and time zone), what
// waits (reviews, failed publishes), and the pages of the brand.

import { ServiceError } from '../../../src/errors.js';
import { esc, table } from '../layout.js';
import { count, money, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';

interface Overview {
  currency: string;
  timezone: string;
  asOf: string;
  totals: { spendMinorUnits: number | null; results: number; impressions: number; clicks: number };
}

export async function brandPage(req: ConsoleRequest, brand: BrandScope): Promise<Page> {
  const base = `/console/brands/${brand.id}`;
  // Each account's overview (a live read) and the counts are read side by side.
  const overviewRow = async (a: BrandScope['accounts'][number]): Promise<string[]> => {
    let spend: string;
    let results: string;
    let asOf: string;
    try {
      const o = await req.call<Overview>(brand.principal, 'get-overview', { brandId: brand.id, accountId: a.accountId, datePreset: 'today' });
      spend = `<span class="spend-today" data-minor-units="${o.totals.spendMinorUnits ?? ''}">${money(o.totals.spendMinorUnits, o.currency)}</span>`;
      results = count(o.totals.results);
      asOf = when(o.asOf, o.timezone);
    } catch (err) {
      // One account's platform not answering leaves the others shown.
      if (!(err instanceof ServiceError)) throw err;
      spend = `<span class="muted">unavailable: ${esc(err.message)}</span>`;
      results = '';
      asOf = '';
    }
    return [
      `${esc(a.name ?? a.accountId)}<br><code>${esc(a.accountId)}</code>`,
      esc(a.platform === 'meta' ? 'Meta' : a.platform === 'tiktok' ? 'TikTok' : a.platform),
      `${esc(a.currency)}, ${esc(a.timezone)}`,
      spend,
      results,
      asOf,
      `<a href="${base}/reports?accountId=${encodeURIComponent(a.accountId)}">Report</a>`,
    ];
  };
  const [rows, reviews, failed] = await Promise.all([
    Promise.all(brand.accounts.map(overviewRow)),
    req.call<{ reviews: Array<{ mayDecide: boolean }> }>(brand.principal, 'list-workflow-reviews', { brandId: brand.id, limit: 100 }),
    req.call<{ batches: unknown[] }>(brand.principal, 'list-launches', { brandId: brand.id, status: 'publish_failed', limit: 100 }),
  ]);
  const toDecide = reviews.reviews.filter((r) => r.mayDecide).length;
  const body = `<h1>${esc(brand.name)}</h1><p class="lead">The brand's ad accounts with today's spend, each in its own currency and time zone.</p>
<ul class="counts" id="waiting"><li><a href="${base}/reviews"><strong>${toDecide}</strong> ${toDecide === 1 ? 'review' : 'reviews'} to decide</a></li>
<li><a href="${base}/launches?status=publish_failed"><strong>${failed.batches.length}</strong> failed ${failed.batches.length === 1 ? 'publish' : 'publishes'}</a></li></ul>
<h2>Ad accounts</h2>
${table({
  id: 'accounts',
  head: ['Account', 'Platform', 'Currency and time zone', 'Spend today', 'Results today', 'As of', ''],
  rows,
  numeric: [3, 4],
  empty: 'This brand has no ad account yet. An owner or admin connects one (a bootstrap file names it); then its spend shows here.',
})}
<h2>Pages of this brand</h2>
<ul><li><a href="${base}/launches">Launches</a>: every launch, its tree, issues and publishes.</li>
<li><a href="${base}/reviews">Reviews</a>: runs waiting for a person's decision, with the plan an approval publishes.</li>
<li><a href="${base}/board">Board</a>: the pipeline's columns and cards.</li>
<li><a href="${base}/reports">Reports</a>: spend (and tracker revenue) per day, per campaign, ad set or ad; CSV.</li>
<li><a href="${base}/automations">Automations</a>: the rules watching live campaigns and their last runs.</li>
<li><a href="${base}/activity">Activity</a>: who changed what, newest first.</li></ul>`;
  return { title: brand.name, body };
}
