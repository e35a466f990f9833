// GET /v1/brands: one row per brand the caller can reach, with its primary ad account.

import { defineOperation } from '../catalogue/define.js';

interface ListBrandsInput {
  cursor?: string;
  limit: number;
}

export const listBrands = defineOperation({
  name: 'list-brands',
  method: 'GET',
  path: '/brands',
  scope: 'read',
  idempotency: 'none',
  input: 'list-brands#/$defs/input',
  output: 'list-brands#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'brands',
  summary: 'List the brands this credential can reach, one row per brand with its primary ad account.',
  description:
    'A brand-limited credential sees only its brands. accountId is the first ad account attached to the brand; ' +
    'connected is false (and active false) when the brand has no ad account. Ordered by brandId.',
  async handler(ctx, input: ListBrandsInput) {
    const { principal } = ctx;
    const after = ctx.page.position();
    const afterId = after ? Number(after[0]) : 0;
    const reachable = (await ctx.directory.brands(principal.organizationId)).filter(
      (b) => b.id > afterId && (!principal.brandIds || principal.brandIds.has(b.id)),
    );
    const page = reachable.slice(0, input.limit);
    return {
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
  },
});
