// /console: the brands the person can see (list-brands as them), each with what waits for them:
// reviews to decide (list-workflow-reviews) and failed publishes (list-launches, publish_failed).

import { esc } from '../layout.js';
import type { ConsoleRequest } from '../request.js';
import type { Page } from './page.js';

interface BrandRow {
  brandId: number;
  brandName: string | null;
  accountId: string | null;
  accountName: string | null;
  connected: boolean;
}

/** How many rows a list answered, with a plus when it has more pages. */
const counted = (n: number, more: boolean) => `${n}${more ? '+' : ''}`;

export async function homePage(req: ConsoleRequest): Promise<Page> {
  const sections: string[] = [];
  for (const org of req.organizations) {
    if (!org.principal) {
      sections.push(
        `<section aria-labelledby="org-${org.organizationId}"><h2 id="org-${org.organizationId}">${esc(org.organizationName)}</h2>
<p class="empty">This organization's plan (${esc(org.plan)}, ${esc(org.subscriptionStatus)}) does not include the app: an owner renews it to see its brands here.</p></section>`,
      );
      continue;
    }
    const principal = org.principal;
    const brands: BrandRow[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { accounts: BrandRow[]; nextCursor: string | null } = await req.call(principal, 'list-brands', {
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      brands.push(...page.accounts);
      cursor = page.nextCursor;
    }
    // The brands' counts are read side by side: each is two reads of its own.
    const cards = await Promise.all(
      brands.map(async (b) => {
        const [reviews, failed] = await Promise.all([
          req.call<{ reviews: Array<{ mayDecide: boolean }>; nextCursor: string | null }>(principal, 'list-workflow-reviews', {
            brandId: b.brandId,
            limit: 100,
          }),
          req.call<{ batches: unknown[]; nextCursor: string | null }>(principal, 'list-launches', {
            brandId: b.brandId,
            status: 'publish_failed',
            limit: 100,
          }),
        ]);
        const toDecide = reviews.reviews.filter((r) => r.mayDecide).length;
        const others = reviews.reviews.length - toDecide;
        const base = `/console/brands/${b.brandId}`;
        return `<article class="card brand-card" id="brand-${b.brandId}" data-brand-id="${b.brandId}">
<h3><a href="${base}">${esc(b.brandName ?? `Brand ${b.brandId}`)}</a></h3>
<p class="muted">${b.connected ? `${esc(b.accountName ?? b.accountId)} <code>${esc(b.accountId)}</code>` : 'No ad account connected yet.'}</p>
<ul class="counts">
<li><a href="${base}/reviews"><strong class="reviews-to-decide">${counted(toDecide, reviews.nextCursor !== null)}</strong> ${toDecide === 1 ? 'review' : 'reviews'} to decide</a>${others ? ` <span class="muted">(${others} waiting on someone else)</span>` : ''}</li>
<li><a href="${base}/launches?status=publish_failed"><strong class="failed-publishes">${counted(failed.batches.length, failed.nextCursor !== null)}</strong> failed ${failed.batches.length === 1 ? 'publish' : 'publishes'}</a></li>
</ul></article>`;
      }),
    );
    sections.push(`<section aria-labelledby="org-${org.organizationId}"><h2 id="org-${org.organizationId}">${esc(org.organizationName)} <span class="muted">(you are ${esc(org.role)})</span></h2>
${cards.length ? `<div class="cards">${cards.join('')}</div>` : '<p class="empty">You can see no brand of this organization yet. An owner or admin adds brands, or gives you access to one.</p>'}</section>`);
  }
  const body = `<h1>Your brands</h1><p class="lead">Each brand with what waits for you: reviews to decide and failed publishes.</p>
${sections.join('') || '<p class="empty">Your account is not a member of any organization yet. Ask an owner to invite you.</p>'}`;
  return { title: 'Your brands', body };
}
