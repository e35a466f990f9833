// The brands area's operations: GET /v1/brands, one row per brand the caller can reach, with its
// primary ad account (served from the brand directory, directory.ts).

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import type { DirectoryBrand } from './directory.js';

interface BrandAccountRow {
  brandId: number;
  brandName: string | null;
  accountId: string | null;
  accountName: string | null;
  connected: boolean;
  active: boolean;
  organizationId: number;
}

interface ListBrandsOutput {
  accounts: BrandAccountRow[];
  nextCursor: string | null;
}

/**
 * Pages already built, per directory snapshot. The directory replaces its array of brands when it
 * reloads them (after KEY_CACHE_MS or a change), so a page here never outlives the brands it shows.
 * Serving the same object again also lets the pipeline and the surfaces reuse its shaping and JSON.
 */
const pages = new WeakMap<readonly DirectoryBrand[], Map<string, ListBrandsOutput>>();
const MAX_PAGES_PER_SNAPSHOT = 1_000;

const listBrands = defineOperation({
  name: 'list-brands',
  method: 'GET',
  path: '/brands',
  scope: 'read',
  idempotency: 'none',
  input: 'list-brands#/$defs/input',
  output: 'list-brands#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'brands',
  toolset: 'accounts',
  summary: 'List the brands this credential can reach, one row per brand with its primary ad account.',
  description:
    'A brand-limited credential sees only its brands. accountId is the first ad account attached to the brand; ' +
    'connected is false (and active false) when the brand has no ad account. Ordered by brandId.',
  uses: ['page', 'directory'],
  async handler(ctx, input) {
    const { principal } = ctx;
    const after = ctx.page.position();
    const afterId = after ? Number(after[0]) : 0;
    const brands = await ctx.directory.brands(principal.organizationId);
    const key = `${afterId}:${input.limit}:${principal.brandIds ? [...principal.brandIds].join(',') : '*'}`;
    let built = pages.get(brands);
    const hit = built?.get(key);
    if (hit) return hit;
    const reachable = brands.filter((b) => b.id > afterId && (!principal.brandIds || principal.brandIds.has(b.id)));
    const page = reachable.slice(0, input.limit);
    const answer: ListBrandsOutput = {
      accounts: page.map((b) => ({
        brandId: b.id,
        brandName: b.name ?? null,
        accountId: b.account?.accountId ?? null,
        accountName: b.account?.name ?? null,
        connected: b.account !== null,
        active: b.account?.active ?? false,
        organizationId: b.organizationId,
      })),
      nextCursor: reachable.length > input.limit ? ctx.page.next([page[page.length - 1].id]) : null,
    };
    if (!built || built.size >= MAX_PAGES_PER_SNAPSHOT) pages.set(brands, (built = new Map()));
    built.set(key, answer);
    return answer;
  },
});

/** The brands area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [listBrands];
