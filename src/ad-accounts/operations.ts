// The ad-accounts area's operations: the account itself and who its ads speak as (page, identity),
// live reads of it on its platform (campaigns, lead forms, options, overview) and its naming convention.

import { defineOperation, type BrandContext, type OperationDefinition } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed, type FieldIssue } from '../errors.js';
import { findAdAccount, fullAdAccountsOf, updateAdAccountIdentity } from '../brands/store.js';
import type { AdAccountIdentity, AdAccountRow } from '../platforms/registry.js';
import type { CampaignPage, Insights, OptionItem } from '../platforms/port.js';
import { liveRead } from '../platforms/live-read.js';
import { resolveDatePreset } from '../platforms/date-presets.js';
import { localDate } from '../time/zones.js';
import { DEFAULT_TEMPLATES, NAMING_FILTERS, NAMING_VARIABLES, parseTemplate, renderTemplate } from '../naming/template.js';
import { campaignPlatformIds, launchedPlatformIds, publishedOnAccount } from '../launches/store.js';
import { findNamingConvention, saveNamingConvention } from './store.js';

const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: true };
const OVERVIEW_SAMPLE = 10;

/** The account as get-ad-account and update-ad-account answer it. */
function adAccountView(brandId: number, row: AdAccountRow) {
  return {
    brandId,
    accountId: row.accountId,
    platform: row.platform,
    name: row.name,
    currency: row.currency,
    timezone: row.timezone,
    active: row.active,
    pageId: row.pageId,
    instagramUserId: row.instagramUserId,
    identityId: row.identityId,
    identityType: row.identityType,
    dsaBeneficiary: row.dsaBeneficiary,
    dsaPayor: row.dsaPayor,
    identityBcId: row.identityBcId,
    allowlisted: row.allowlisted,
    declaredCountries: row.declaredCountries,
    regionalIdentities: row.regionalIdentities,
    smartPlusAllowed: row.smartPlusAllowed,
  };
}

const META_FIELDS = ['pageId', 'instagramUserId', 'dsaBeneficiary', 'dsaPayor', 'regionalIdentities'] as const;
const TIKTOK_FIELDS = ['identityId', 'identityType', 'identityBcId', 'smartPlusAllowed'] as const;
/** What either platform may grant an account: allowlisted features, declared countries (null clears to none). */
const SHARED_FIELDS = ['allowlisted', 'declaredCountries'] as const;

const getAdAccount = defineOperation({
  name: 'get-ad-account',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}',
  scope: 'read',
  idempotency: 'none',
  input: 'ad-account#/$defs/getInput',
  output: 'ad-account#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: 'Get an ad account of a brand: platform, name, currency, time zone, and who its ads speak as (Meta page, TikTok identity).',
  description:
    'pageId and instagramUserId (Meta) and identityId and identityType (TikTok) are null until set; an ad with no page (Meta) or ' +
    'no identity (TikTok), neither on the ad nor on its account, fails launch validation.',
  uses: [],
  async handler(ctx, input) {
    const row = await findAdAccount(ctx.db, ctx.brand.id, input.accountId);
    if (!row) throw notFound(`Ad account ${input.accountId} of brand ${ctx.brand.id}`);
    return adAccountView(ctx.brand.id, row);
  },
});

const listAdAccounts = defineOperation({
  name: 'list-ad-accounts',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts',
  scope: 'read',
  idempotency: 'none',
  input: 'list-ad-accounts#/$defs/input',
  output: 'list-ad-accounts#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: "List a brand's ad accounts, in the order they were attached: platform, name, currency, time zone, and who their ads speak as.",
  description:
    'Each account as get-ad-account answers it. list-brands shows only the first account of each brand; this lists them all (a brand has a handful, ' +
    'so the list is not paged: nextCursor is always null).',
  uses: [],
  async handler(ctx) {
    return {
      brandId: ctx.brand.id,
      brandName: ctx.brand.name,
      adAccounts: (await fullAdAccountsOf(ctx.db, ctx.brand.id)).map((row) => adAccountView(ctx.brand.id, row)),
      nextCursor: null,
    };
  },
});

const updateAdAccount = defineOperation({
  name: 'update-ad-account',
  method: 'PATCH',
  path: '/brands/{brandId}/ad-accounts/{accountId}',
  scope: 'write',
  errors: ['forbidden'],
  idempotency: 'none',
  input: 'ad-account#/$defs/updateInput',
  output: 'ad-account#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'setup',
  summary: "Set who an ad account's ads speak as: the Meta page (and Instagram account) or the TikTok identity.",
  description:
    'A JSON merge patch: fields sent replace the stored ones, null clears one, fields not sent stay. pageId, instagramUserId, ' +
    'dsaBeneficiary, dsaPayor and regionalIdentities (the verified identity ids Meta issued for SG and TW: {"SG": {"beneficiary", "payer"}}) apply to Meta accounts, ' +
    'identityId, identityType (CUSTOMIZED_USER, TT_USER, BC_AUTH_TT, AUTH_CODE), identityBcId and smartPlusAllowed to TikTok accounts, ' +
    'allowlisted and declaredCountries to both; a TikTok identity needs both id and type. Requires an organization owner or admin when called as a person (else 403 forbidden). ' +
    'Launches already published keep what they were published with.',
  uses: ['platforms', 'activity'],
  async handler(ctx, input) {
    const p = ctx.principal;
    if (p.kind === 'user' && p.role !== 'owner' && p.role !== 'admin') {
      throw new ServiceError('forbidden', "Only an organization owner or admin may change who an ad account's ads speak as.", { role: p.role });
    }
    const row = await findAdAccount(ctx.db, ctx.brand.id, input.accountId);
    if (!row) throw notFound(`Ad account ${input.accountId} of brand ${ctx.brand.id}`);
    const changes: Partial<AdAccountIdentity> = {};
    const issues: FieldIssue[] = [];
    const own = row.platform === 'meta' ? META_FIELDS : TIKTOK_FIELDS;
    const foreign = row.platform === 'meta' ? TIKTOK_FIELDS : META_FIELDS;
    for (const key of foreign) {
      if (input[key] !== undefined)
        issues.push({
          field: key,
          code: 'invalid_value',
          message:
            row.platform === 'meta'
              ? `is a TikTok field; ${row.accountId} is a Meta account: set pageId (and instagramUserId)`
              : `is a Meta field; ${row.accountId} is a TikTok account: set identityId and identityType`,
        });
    }
    for (const key of own) if (input[key] !== undefined) Object.assign(changes, { [key]: input[key] });
    for (const key of SHARED_FIELDS) if (input[key] !== undefined) changes[key] = input[key] ?? [];
    if (row.platform === 'tiktok') {
      const identityId = changes.identityId !== undefined ? changes.identityId : row.identityId;
      const identityType = changes.identityType !== undefined ? changes.identityType : row.identityType;
      if ((identityId === null) !== (identityType === null))
        issues.push({
          field: identityId === null ? 'identityId' : 'identityType',
          code: 'invalid_value',
          message: 'identityId and identityType go together: set both, or clear both with null',
        });
    }
    if (issues.length) throw validationFailed(issues);
    if (Object.keys(changes).length) {
      await updateAdAccountIdentity(ctx.db, ctx.brand.id, row.accountId, changes);
      ctx.platforms.forget(ctx.brand.id, row.accountId);
      await ctx.activity.record({
        brandId: ctx.brand.id,
        accountId: row.accountId,
        entityType: 'unknown',
        entityId: row.accountId,
        entityName: row.name ?? row.accountId,
        action: 'ad_account.updated',
      });
    }
    return adAccountView(ctx.brand.id, { ...row, ...changes });
  },
});

const listCampaigns = defineOperation({
  name: 'list-campaigns',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/campaigns',
  scope: 'read',
  errors: ['capability_unsupported', 'unavailable'],
  idempotency: 'none',
  input: 'list-campaigns#/$defs/input',
  output: 'list-campaigns#/$defs/output',
  annotations: readOnly,
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: 'List every campaign in an ad account, including those not launched through the service.',
  description:
    'A live read from the ad platform (asOf says when; values may come from a cache of up to a minute). Filter with repeated statusFilter and a case-insensitive nameQuery; pages follow what the platform returns at call time.',
  uses: ['platforms', 'metrics', 'page'],
  async handler(ctx, input) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId);
    const after = (ctx.page.position()?.[0] as string | undefined) ?? null;
    const query = { statuses: input.statusFilter, nameQuery: input.nameQuery, after, limit: input.limit };
    // The whole answer is cached (for this brand: an account may serve several), with which campaigns
    // came from the service's launches; publishing invalidates it. A hit answers the stored object.
    const { value } = await liveRead(ctx, account, 'campaigns', { ...query, brandId: ctx.brand.id, nameQuery: input.nameQuery ?? null }, async () => {
      const page = await ctx.platforms.adapterFor(account.platform).listCampaigns(account, query);
      const imported = await launchedPlatformIds(
        ctx.db,
        page.campaigns.map((c) => c.id),
      );
      return campaignListAnswer(ctx, page, imported, input.nameQuery ?? null, new Date(ctx.now()).toISOString());
    });
    return value;
  },
});

function campaignListAnswer(ctx: BrandContext<'page'>, page: CampaignPage, imported: Set<string>, nameQuery: string | null, asOf: string) {
  return {
    asOf,
    campaigns: page.campaigns.map((c) => ({
      id: c.id,
      name: c.name,
      status: c.status,
      effective_status: c.effectiveStatus,
      objective: c.objective,
      brandId: ctx.brand.id,
      budget: c.budget,
      budgetLevel: c.budgetLevel,
      createdAt: c.createdAt,
      imported: imported.has(c.id),
      // Meta's own word on whether the campaign is an Advantage+ campaign, as Meta answered it.
      advantage_state_info: c.advantageStateInfo ?? null,
    })),
    totalInAccount: page.totalInAccount,
    matched: page.matched,
    nameQuery,
    nextCursor: page.after ? ctx.page.next([page.after]) : null,
  };
}

const listLeadForms = defineOperation({
  name: 'list-lead-forms',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/lead-forms',
  scope: 'read',
  errors: ['capability_unsupported', 'unavailable'],
  idempotency: 'none',
  input: 'list-lead-forms#/$defs/input',
  output: 'list-lead-forms#/$defs/output',
  annotations: readOnly,
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: 'List the lead forms of a page on the ad platform.',
  uses: ['platforms', 'metrics', 'page'],
  async handler(ctx, input) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId);
    const after = (ctx.page.position()?.[0] as string | undefined) ?? null;
    const { value } = await liveRead(ctx, account, 'lead-forms', { pageId: input.pageId, after, limit: input.limit }, () =>
      ctx.platforms.adapterFor(account.platform).listLeadForms(account, input.pageId, after, input.limit),
    );
    return { leadForms: value.leadForms, nextCursor: value.after ? ctx.page.next([value.after]) : null };
  },
});

const listOptions = defineOperation({
  name: 'list-options',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/options',
  scope: 'read',
  errors: ['capability_unsupported', 'unavailable'],
  idempotency: 'none',
  input: 'list-options#/$defs/input',
  output: 'list-options#/$defs/output',
  annotations: readOnly,
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary:
    'List the selectable assets (pixels, pages, profile accounts, audiences) and targeting values (interests, locations, conversion events) of an ad account.',
  description: 'query searches names case-insensitively. A type the platform does not have answers 422 capability_unsupported (TikTok has no pages).',
  uses: ['platforms', 'metrics'],
  async handler(ctx, input) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId);
    const { value, asOf } = await liveRead<OptionItem[]>(ctx, account, 'options', { type: input.optionType, query: input.query ?? null }, () =>
      ctx.platforms.adapterFor(account.platform).listOptions(account, input.optionType, input.query),
    );
    return { optionType: input.optionType, query: input.query ?? null, asOf, items: value };
  },
});

function ratio(a: number, b: number, scale = 1, digits = 2): number | null {
  return b > 0 ? Math.round(((a * scale) / b) * 10 ** digits) / 10 ** digits : null;
}

function totalsOf(i: Insights) {
  return {
    spendMinorUnits: i.spendMinorUnits,
    impressions: i.impressions,
    clicks: i.clicks,
    ctr: ratio(i.clicks, i.impressions, 100),
    cpcMinorUnits: i.clicks > 0 ? Math.round(i.spendMinorUnits / i.clicks) : null,
    cpmMinorUnits: i.impressions > 0 ? Math.round((i.spendMinorUnits * 1000) / i.impressions) : null,
    results: i.results,
    costPerResultMinorUnits: i.results > 0 ? Math.round(i.spendMinorUnits / i.results) : null,
    revenueMinorUnits: i.revenueMinorUnits,
    roas: ratio(i.revenueMinorUnits, i.spendMinorUnits),
  };
}

const getOverview = defineOperation({
  name: 'get-overview',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/overview',
  scope: 'read',
  errors: ['unavailable'],
  idempotency: 'none',
  input: 'get-overview#/$defs/input',
  output: 'get-overview#/$defs/output',
  annotations: readOnly,
  tag: 'ad-accounts',
  toolset: 'monitor',
  summary: "Roll up spend, results and delivery of the service's launches on an ad account over a date preset.",
  description:
    'Only campaigns launched through the service count, sampling the 10 most recently published launches. Presets are resolved in the ' +
    'account timezone; last_Nd ends yesterday; maximum is the lifetime window.',
  uses: ['platforms', 'metrics'],
  async handler(ctx, input) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId);
    const { total, sample } = await publishedOnAccount(ctx.db, ctx.brand.id, account.accountId, OVERVIEW_SAMPLE);
    const campaignIds = await campaignPlatformIds(
      ctx.db,
      sample.map((s) => s.id),
      account.accountId,
    );
    const earliest = sample.reduce<number | null>((min, s) => (min === null || s.publishedAt < min ? s.publishedAt : min), null);
    const window = resolveDatePreset(input.datePreset, ctx.now(), account.timezone, earliest === null ? undefined : localDate(earliest, account.timezone));
    const { value, asOf } = await liveRead<Insights>(ctx, account, 'insights', { campaignIds, window }, () =>
      ctx.platforms.adapterFor(account.platform).insights(account, campaignIds, window),
    );
    return {
      accountId: account.accountId,
      currency: account.currency,
      timezone: account.timezone,
      datePreset: input.datePreset,
      window,
      asOf,
      totals: totalsOf(value),
      launches: { sampled: sample.length, total, sampleLimit: OVERVIEW_SAMPLE, campaigns: campaignIds.length },
    };
  },
});

/** The account's naming convention as answered: its templates (or the defaults), each with an example, and what they may use. */
async function namingView(ctx: BrandContext<'platforms'>, accountId: string) {
  const account = await ctx.platforms.account(ctx.db, ctx.brand.id, accountId);
  const saved = await findNamingConvention(ctx.db, ctx.brand.id, account.accountId);
  const templates = saved ? saved.templates : { ...DEFAULT_TEMPLATES };
  const values = Object.fromEntries(Object.entries(NAMING_VARIABLES).map(([k, v]) => [k, v.example]));
  Object.assign(values, { brand: ctx.brand.name, account: account.name ?? account.accountId, platform: account.platform });
  const now = ctx.now();
  return {
    accountId: account.accountId,
    templates,
    examples: {
      campaign: renderTemplate(templates.campaign, values, now),
      adset: renderTemplate(templates.adset, values, now),
      ad: renderTemplate(templates.ad, values, now),
    },
    variables: Object.entries(NAMING_VARIABLES).map(([name, v]) => ({
      name,
      description: v.description,
      example: name === 'date' ? renderTemplate('{date:YYYY-MM-DD}', {}, now) : values[name],
    })),
    filters: [...NAMING_FILTERS],
    isDefault: !saved,
    updatedAt: saved ? new Date(saved.updatedAt).toISOString() : null,
  };
}

const getNamingConvention = defineOperation({
  name: 'get-naming-convention',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/naming-convention',
  scope: 'read',
  idempotency: 'none',
  input: 'naming-convention#/$defs/getInput',
  output: 'naming-convention#/$defs/output',
  annotations: { ...readOnly, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'setup',
  summary: 'Show the naming templates of an ad account at campaign, ad set and ad level, each with a rendered example.',
  uses: ['platforms'],
  handler: (ctx, input) => namingView(ctx, input.accountId),
});

const setNamingConvention = defineOperation({
  name: 'set-naming-convention',
  method: 'PUT',
  path: '/brands/{brandId}/ad-accounts/{accountId}/naming-convention',
  scope: 'write',
  idempotency: 'none',
  input: 'naming-convention#/$defs/setInput',
  output: 'naming-convention#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'setup',
  summary: 'Set the naming templates of an ad account (any of campaign, adset, ad); the others keep their current value.',
  uses: ['platforms', 'activity'],
  async handler(ctx, input) {
    const current = await namingView(ctx, input.accountId);
    const issues = (['campaign', 'adset', 'ad'] as const).flatMap((level) =>
      input[level] === undefined ? [] : parseTemplate(input[level]!).problems.map((p) => ({ field: level, code: 'invalid_value', message: p.message })),
    );
    if (issues.length) throw validationFailed(issues);
    const templates = {
      ...current.templates,
      ...Object.fromEntries((['campaign', 'adset', 'ad'] as const).filter((l) => input[l] !== undefined).map((l) => [l, input[l]])),
    };
    await saveNamingConvention(ctx.db, ctx.brand.id, input.accountId, templates, ctx.now());
    await ctx.activity.record({
      brandId: ctx.brand.id,
      accountId: input.accountId,
      entityType: 'unknown',
      entityId: input.accountId,
      entityName: 'naming convention',
      action: 'naming_convention.updated',
    });
    return namingView(ctx, input.accountId);
  },
});

/** The ad-accounts area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [
  listAdAccounts,
  getAdAccount,
  updateAdAccount,
  listCampaigns,
  listLeadForms,
  listOptions,
  getOverview,
  getNamingConvention,
  setNamingConvention,
];
