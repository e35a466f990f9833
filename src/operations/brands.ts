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
    const { principal, db } = ctx;
    const after = ctx.page.position();
    const query = db('brands').where('organization_id', principal.organizationId).orderBy('id').limit(input.limit + 1).select('id', 'name', 'organization_id');
    if (principal.brandIds) query.whereIn('id', [...principal.brandIds]);
    if (after) query.where('id', '>', Number(after[0]));
    const rows = await query;
    const page = rows.slice(0, input.limit);
    const ids = page.map((r) => Number(r.id));
    const accounts = ids.length
      ? await db('ad_accounts').whereIn('brand_id', ids).orderBy('id').select('brand_id', 'account_id', 'name', 'active')
      : [];
    const primary = new Map<number, (typeof accounts)[number]>();
    for (const a of accounts) if (!primary.has(Number(a.brand_id))) primary.set(Number(a.brand_id), a);
    return {
      accounts: page.map((b) => {
        const account = primary.get(Number(b.id));
        return {
          brandId: Number(b.id),
          brandName: b.name ?? null,
          accountId: account?.account_id ?? null,
          accountName: account?.name ?? null,
          connected: Boolean(account),
          active: account ? Boolean(account.active) : false,
          organizationId: Number(b.organization_id),
        };
      }),
      nextCursor: rows.length > input.limit ? ctx.page.next([ids[ids.length - 1]]) : null,
    };
  },
});
