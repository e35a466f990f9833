// The brands area's tables: `brands` and the ad accounts attached to them (`ad_accounts`). The only
// file that queries them; other areas call these functions.

import type { Knex } from 'knex';
import type { PlatformName } from '../platforms/platform-name.js';
import type { AdAccountIdentity, AdAccountRow } from '../platforms/registry.js';
import type { RegionalIdentities } from '../platforms/port.js';

type Db = Knex | Knex.Transaction;

/** A brand with the first ad account attached to it, as the directory serves it. */
export interface BrandWithAccount {
  id: number;
  organizationId: number;
  name: string;
  account: { accountId: string; name: string | null; active: boolean } | null;
}

/** The organization's brands in id order, each with its first ad account (lowest id), in one query. */
export async function brandsWithFirstAccount(knex: Knex, organizationId: number): Promise<BrandWithAccount[]> {
  const rows = await knex('brands as b')
    .leftJoin('ad_accounts as a', (j) => {
      j.on('a.brand_id', '=', 'b.id').andOn('a.id', '=', knex.raw('(select min(a2.id) from ad_accounts a2 where a2.brand_id = b.id)'));
    })
    .where('b.organization_id', organizationId)
    .orderBy('b.id')
    .select('b.id', 'b.name', 'a.account_id', 'a.name as account_name', 'a.active');
  return rows.map((r) => ({
    id: Number(r.id),
    organizationId,
    name: r.name,
    account: r.account_id ? { accountId: r.account_id, name: r.account_name ?? null, active: Boolean(r.active) } : null,
  }));
}

/** A JSON list column (allowlisted, declared_countries) as a list of strings; empty when unset. */
function listOf(value: unknown): string[] {
  if (typeof value !== 'string' || !value) return [];
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** A JSON object column (regional_identities) as its object; null when unset. */
function objectOf<T>(value: unknown): T | null {
  if (typeof value !== 'string' || !value) return null;
  const parsed: unknown = JSON.parse(value);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as T) : null;
}

/** An account row's Business Center, allowlist, declared countries, regional identities and Smart+ permission. */
const grantsOf = (r: Record<string, unknown>) => ({
  identityBcId: (r.identity_bc_id as string | null) ?? null,
  allowlisted: listOf(r.allowlisted),
  declaredCountries: listOf(r.declared_countries),
  regionalIdentities: objectOf<RegionalIdentities>(r.regional_identities),
  smartPlusAllowed: Boolean(r.smart_plus_allowed),
});

/** Regional identities as their column: null when there are none. */
const regionalColumn = (value: RegionalIdentities | null | undefined): string | null => (value && Object.keys(value).length ? JSON.stringify(value) : null);

function toAdAccountRow(r: Record<string, any>): AdAccountRow {
  return {
    platform: r.platform,
    accountId: r.account_id,
    timezone: r.timezone,
    currency: r.currency,
    accessTokenEncrypted: r.access_token_encrypted ?? null,
    name: r.name ?? null,
    active: Boolean(r.active),
    pageId: r.page_id ?? null,
    instagramUserId: r.instagram_user_id ?? null,
    identityId: r.identity_id ?? null,
    identityType: r.identity_type ?? null,
    dsaBeneficiary: r.dsa_beneficiary ?? null,
    dsaPayor: r.dsa_payor ?? null,
    ...grantsOf(r),
  };
}

/** The brand's ad account `accountId`, or undefined when the brand has none with that id. */
export async function findAdAccount(db: Db, brandId: number, accountId: string): Promise<AdAccountRow | undefined> {
  const r = await db('ad_accounts').where({ brand_id: brandId, account_id: accountId }).first();
  return r ? toAdAccountRow(r) : undefined;
}

/** Every ad account of the brand, whole, in the order they were attached (id order). */
export async function fullAdAccountsOf(db: Db, brandId: number): Promise<AdAccountRow[]> {
  return (await db('ad_accounts').where({ brand_id: brandId }).orderBy('id')).map(toAdAccountRow);
}

/** Sets the given identity fields of the brand's ad account `accountId`; answers whether the account exists. */
export async function updateAdAccountIdentity(db: Db, brandId: number, accountId: string, changes: Partial<AdAccountIdentity>): Promise<boolean> {
  const columns: Record<string, string | boolean | null> = {};
  if (changes.regionalIdentities !== undefined) columns.regional_identities = regionalColumn(changes.regionalIdentities);
  if (changes.smartPlusAllowed !== undefined) columns.smart_plus_allowed = changes.smartPlusAllowed;
  if (changes.identityBcId !== undefined) columns.identity_bc_id = changes.identityBcId;
  if (changes.allowlisted !== undefined) columns.allowlisted = changes.allowlisted.length ? JSON.stringify(changes.allowlisted) : null;
  if (changes.declaredCountries !== undefined) columns.declared_countries = changes.declaredCountries.length ? JSON.stringify(changes.declaredCountries) : null;
  if (changes.pageId !== undefined) columns.page_id = changes.pageId;
  if (changes.instagramUserId !== undefined) columns.instagram_user_id = changes.instagramUserId;
  if (changes.identityId !== undefined) columns.identity_id = changes.identityId;
  if (changes.identityType !== undefined) columns.identity_type = changes.identityType;
  if (changes.dsaBeneficiary !== undefined) columns.dsa_beneficiary = changes.dsaBeneficiary;
  if (changes.dsaPayor !== undefined) columns.dsa_payor = changes.dsaPayor;
  const query = db('ad_accounts').where({ brand_id: brandId, account_id: accountId });
  if (!Object.keys(columns).length) return Boolean(await query.first('id'));
  return (await query.update(columns)) > 0;
}

/** The brand's ad accounts in the order they were attached (id order), with their platforms, names and who their ads speak as. */
export async function adAccountsOf(
  db: Db,
  brandId: number,
): Promise<Array<{ accountId: string; platform: PlatformName; name: string | null; currency: string } & AdAccountIdentity>> {
  const rows = await db('ad_accounts')
    .where({ brand_id: brandId })
    .orderBy('id')
    .select(
      'account_id',
      'platform',
      'name',
      'currency',
      'page_id',
      'instagram_user_id',
      'identity_id',
      'identity_type',
      'dsa_beneficiary',
      'dsa_payor',
      'identity_bc_id',
      'allowlisted',
      'declared_countries',
      'regional_identities',
      'smart_plus_allowed',
    );
  return rows.map((r) => ({
    accountId: r.account_id as string,
    platform: r.platform,
    name: r.name ?? null,
    currency: r.currency as string,
    pageId: r.page_id ?? null,
    instagramUserId: r.instagram_user_id ?? null,
    identityId: r.identity_id ?? null,
    identityType: r.identity_type ?? null,
    dsaBeneficiary: r.dsa_beneficiary ?? null,
    dsaPayor: r.dsa_payor ?? null,
    ...grantsOf(r),
  }));
}

/** The brand's ad accounts in id order with their row ids (the simulators derive ids from them). */
export async function adAccountRowsOf(db: Db, brandId: number): Promise<Array<{ rowId: number; accountId: string; name: string | null }>> {
  const rows = await db('ad_accounts').where({ brand_id: brandId }).orderBy('id').select('id', 'account_id', 'name');
  return rows.map((r) => ({ rowId: Number(r.id), accountId: r.account_id as string, name: r.name ?? null }));
}

/** True when brand `id` is a brand of the organization. */
export async function isBrandOf(db: Db, organizationId: number, id: number): Promise<boolean> {
  return Boolean(await db('brands').where({ id, organization_id: organizationId }).first('id'));
}

/** The organization of brand `id`, or undefined when there is no such brand. */
export async function organizationOfBrand(db: Db, id: number): Promise<number | undefined> {
  const row = await db('brands').where({ id }).first('organization_id');
  return row ? Number(row.organization_id) : undefined;
}

/** The name of brand `id`, or null when there is no such brand. */
export async function brandNameOf(db: Db, id: number): Promise<string | null> {
  const row = await db('brands').where({ id }).first('name');
  return row ? String(row.name) : null;
}

/** Locks the brand's row for the rest of the transaction (changes of a brand-wide layout take it first). */
export async function lockBrand(db: Db, brandId: number): Promise<void> {
  await db('brands').where({ id: brandId }).forUpdate().first('id');
}

/** Stores a new brand of the organization; answers its id. */
export async function insertBrand(db: Db, organizationId: number, name: string, now: number): Promise<number> {
  const [id] = await db('brands').insert({ organization_id: organizationId, name, active: true, created_at: now });
  return Number(id);
}

/** Attaches an ad account to a brand (the token already sealed). */
export async function insertAdAccount(db: Db, a: AdAccountRow & { organizationId: number; brandId: number }, now: number): Promise<void> {
  await db('ad_accounts').insert({
    organization_id: a.organizationId,
    brand_id: a.brandId,
    platform: a.platform,
    account_id: a.accountId,
    name: a.name,
    timezone: a.timezone,
    currency: a.currency,
    active: a.active,
    access_token_encrypted: a.accessTokenEncrypted,
    page_id: a.pageId,
    instagram_user_id: a.instagramUserId,
    identity_id: a.identityId,
    identity_type: a.identityType,
    dsa_beneficiary: a.dsaBeneficiary ?? null,
    dsa_payor: a.dsaPayor ?? null,
    identity_bc_id: a.identityBcId ?? null,
    allowlisted: a.allowlisted?.length ? JSON.stringify(a.allowlisted) : null,
    declared_countries: a.declaredCountries?.length ? JSON.stringify(a.declaredCountries) : null,
    regional_identities: regionalColumn(a.regionalIdentities),
    smart_plus_allowed: a.smartPlusAllowed ?? false,
    created_at: now,
  });
}

/** The organizations that already have each of `accountIds` attached to one of their brands. */
export async function organizationsWithAdAccounts(db: Db, accountIds: string[]): Promise<Array<{ accountId: string; organizationId: number }>> {
  if (!accountIds.length) return [];
  const rows = await db('ad_accounts').whereIn('account_id', accountIds).distinct('account_id', 'organization_id').orderBy('organization_id');
  return rows.map((r) => ({ accountId: String(r.account_id), organizationId: Number(r.organization_id) }));
}

/** How many ad accounts hold a sealed platform access token, and one of them (the lowest row), for the start-up check of the key. */
export async function sealedAccessTokens(db: Db): Promise<{ count: number; sample: { accountId: string; sealed: string } | null }> {
  const [{ n }] = await db('ad_accounts').whereNotNull('access_token_encrypted').count({ n: '*' });
  const first = await db('ad_accounts').whereNotNull('access_token_encrypted').orderBy('id').first('account_id', 'access_token_encrypted');
  return { count: Number(n), sample: first ? { accountId: first.account_id, sealed: first.access_token_encrypted } : null };
}
