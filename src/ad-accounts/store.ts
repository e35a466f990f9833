// The ad-accounts area's table, `naming_conventions`: the naming templates of one ad account of a
// brand (campaign, ad set, ad). The only file that queries it. The ad accounts themselves are the
// brands area's (src/brands/store.ts); what lives on them is read from the platforms.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface NamingTemplates {
  campaign: string;
  adset: string;
  ad: string;
}

/** The account's saved templates and when they were saved, or undefined when it keeps the defaults. */
export async function findNamingConvention(db: Db, brandId: number, accountId: string): Promise<{ templates: NamingTemplates; updatedAt: number } | undefined> {
  const row = await db('naming_conventions').where({ brand_id: brandId, account_id: accountId }).first();
  if (!row) return undefined;
  return { templates: { campaign: row.campaign_template, adset: row.adset_template, ad: row.ad_template }, updatedAt: Number(row.updated_at) };
}

/** The saved templates of those of the brand's accounts among `accountIds` that have any. */
export async function namingConventionsAmong(db: Db, brandId: number, accountIds: string[]): Promise<Map<string, NamingTemplates>> {
  if (!accountIds.length) return new Map();
  const rows = await db('naming_conventions').where({ brand_id: brandId }).whereIn('account_id', accountIds);
  return new Map(rows.map((r) => [r.account_id as string, { campaign: r.campaign_template, adset: r.adset_template, ad: r.ad_template }]));
}

/** Saves the account's templates (the row is made on first save). */
export async function saveNamingConvention(db: Db, brandId: number, accountId: string, templates: NamingTemplates, at: number): Promise<void> {
  const row = { campaign_template: templates.campaign, adset_template: templates.adset, ad_template: templates.ad, updated_at: at };
  const updated = await db('naming_conventions').where({ brand_id: brandId, account_id: accountId }).update(row);
  if (!updated) await db('naming_conventions').insert({ brand_id: brandId, account_id: accountId, ...row });
}
