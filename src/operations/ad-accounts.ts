// Live reads of an ad account (campaigns, lead forms, options, overview) and its naming convention.

import { defineOperation, type OperationContext } from '../catalogue/define.js';
import { validationFailed } from '../errors.js';
import type { CampaignPage, Insights, OptionItem, OptionType, PlatformStatus } from '../platforms/port.js';
import { liveRead } from '../platforms/live-read.js';
import { resolveDatePreset, type DatePreset } from '../platforms/date-presets.js';
import { localDate } from '../time/zones.js';
import { DEFAULT_TEMPLATES, NAMING_FILTERS, NAMING_VARIABLES, parseTemplate, renderTemplate } from '../naming/template.js';

const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: true };
const OVERVIEW_SAMPLE = 10;

interface AccountInput {
  brandId: number;
  accountId: string;
}

export const listCampaigns = defineOperation({
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
  description: 'A live read from the ad platform (asOf says when; values may come from a cache of up to a minute). Filter with repeated statusFilter and a case-insensitive nameQuery; pages follow what the platform returns at call time.',
  async handler(ctx, input: AccountInput & { statusFilter?: PlatformStatus[]; nameQuery?: string; cursor?: string; limit: number }) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId);
    const after = (ctx.page.position()?.[0] as string | undefined) ?? null;
    const query = { statuses: input.statusFilter, nameQuery: input.nameQuery, after, limit: input.limit };
    // The whole answer is cached (for this brand: an account may serve several), with which campaigns
    // came from the service's launches; publishing invalidates it. A hit answers the stored object.
    const { value } = await liveRead(ctx, account, 'campaigns', { ...query, brandId: ctx.brand!.id, nameQuery: input.nameQuery ?? null }, async () => {
      const page = await ctx.platforms.adapterFor(account.platform).listCampaigns(account, query);
      const ids = page.campaigns.map((c) => c.id);
      const imported = new Set<string>(ids.length ? await ctx.db('launch_nodes').whereIn('platform_id', ids).pluck('platform_id') : []);
      return campaignListAnswer(ctx, page, imported, input.nameQuery ?? null, new Date(ctx.now()).toISOString());
    });
    return value;
  },
});

function campaignListAnswer(ctx: OperationContext, page: CampaignPage, imported: Set<string>, nameQuery: string | null, asOf: string) {
  return {
      asOf,
      campaigns: page.campaigns.map((c) => ({
        id: c.id,
        name: c.name,
        status: c.status,
        effective_status: c.effectiveStatus,
        objective: c.objective,
        brandId: ctx.brand!.id,
        budget: c.budget,
        budgetLevel: c.budgetLevel,
        createdAt: c.createdAt,
        imported: imported.has(c.id),
      })),
      totalInAccount: page.totalInAccount,
      matched: page.matched,
      nameQuery,
      nextCursor: page.after ? ctx.page.next([page.after]) : null,
  };
}

export const listLeadForms = defineOperation({
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
  async handler(ctx, input: AccountInput & { pageId: string; cursor?: string; limit: number }) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId);
    const after = (ctx.page.position()?.[0] as string | undefined) ?? null;
    const { value } = await liveRead(ctx, account, 'lead-forms', { pageId: input.pageId, after, limit: input.limit }, () =>
      ctx.platforms.adapterFor(account.platform).listLeadForms(account, input.pageId, after, input.limit),
    );
    return { leadForms: value.leadForms, nextCursor: value.after ? ctx.page.next([value.after]) : null };
  },
});

export const listOptions = defineOperation({
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
  summary: 'List the selectable assets (pixels, pages, profile accounts, audiences) and targeting values (interests, locations, conversion events) of an ad account.',
  description: 'query searches names case-insensitively. A type the platform does not have answers 422 capability_unsupported (TikTok has no pages).',
  async handler(ctx, input: AccountInput & { optionType: OptionType; query?: string }) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId);
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

export const getOverview = defineOperation({
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
  async handler(ctx, input: AccountInput & { datePreset: DatePreset }) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId);
    const published = ctx.db('launches as l')
      .where({ 'l.brand_id': ctx.brand!.id, 'l.status': 'published' })
      .whereExists((q) => q.select(ctx.db.raw('1')).from('launch_nodes as n').whereRaw('n.launch_id = l.id').where({ 'n.node_type': 'campaign', 'n.account_id': account.accountId }));
    const [total, sample] = await Promise.all([
      published.clone().count({ n: '*' }).first(),
      published.clone().orderBy([{ column: 'l.published_at', order: 'desc' }, { column: 'l.id', order: 'desc' }]).limit(OVERVIEW_SAMPLE).select('l.id', 'l.published_at'),
    ]);
    const campaignIds: string[] = sample.length
      ? await ctx.db('launch_nodes')
          .whereIn('launch_id', sample.map((s) => s.id))
          .where({ node_type: 'campaign', account_id: account.accountId })
          .whereNotNull('platform_id')
          .orderBy('platform_id')
          .pluck('platform_id')
      : [];
    const earliest = sample.reduce<number | null>((min, s) => (min === null || Number(s.published_at) < min ? Number(s.published_at) : min), null);
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
      launches: { sampled: sample.length, total: Number(total?.n ?? 0), sampleLimit: OVERVIEW_SAMPLE, campaigns: campaignIds.length },
    };
  },
});

async function namingView(ctx: OperationContext, input: AccountInput) {
  const account = await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId);
  const row = await ctx.db('naming_conventions').where({ brand_id: ctx.brand!.id, account_id: account.accountId }).first();
  const templates = row ? { campaign: row.campaign_template, adset: row.adset_template, ad: row.ad_template } : { ...DEFAULT_TEMPLATES };
  const values = Object.fromEntries(Object.entries(NAMING_VARIABLES).map(([k, v]) => [k, v.example]));
  Object.assign(values, { brand: ctx.brand!.name, account: account.name ?? account.accountId, platform: account.platform });
  const now = ctx.now();
  return {
    accountId: account.accountId,
    templates,
    examples: {
      campaign: renderTemplate(templates.campaign, values, now),
      adset: renderTemplate(templates.adset, values, now),
      ad: renderTemplate(templates.ad, values, now),
    },
    variables: Object.entries(NAMING_VARIABLES).map(([name, v]) => ({ name, description: v.description, example: name === 'date' ? renderTemplate('{date:YYYY-MM-DD}', {}, now) : values[name] })),
    filters: [...NAMING_FILTERS],
    isDefault: !row,
    updatedAt: row ? new Date(Number(row.updated_at)).toISOString() : null,
  };
}

export const getNamingConvention = defineOperation({
  name: 'get-naming-convention',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/naming-convention',
  scope: 'read',
  idempotency: 'none',
  input: 'naming-convention#/$defs/getInput',
  output: 'naming-convention#/$defs/output',
  annotations: { ...readOnly, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: 'Show the naming templates of an ad account at campaign, ad set and ad level, each with a rendered example.',
  handler: (ctx, input: AccountInput) => namingView(ctx, input),
});

export const setNamingConvention = defineOperation({
  name: 'set-naming-convention',
  method: 'PUT',
  path: '/brands/{brandId}/ad-accounts/{accountId}/naming-convention',
  scope: 'write',
  idempotency: 'none',
  input: 'naming-convention#/$defs/setInput',
  output: 'naming-convention#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'ad-accounts',
  toolset: 'accounts',
  summary: 'Set the naming templates of an ad account (any of campaign, adset, ad); the others keep their current value.',
  async handler(ctx, input: AccountInput & { campaign?: string; adset?: string; ad?: string }) {
    const current = await namingView(ctx, input);
    const issues = (['campaign', 'adset', 'ad'] as const).flatMap((level) =>
      input[level] === undefined ? [] : parseTemplate(input[level]!).problems.map((p) => ({ field: level, code: 'invalid_value', message: p.message })),
    );
    if (issues.length) throw validationFailed(issues);
    const templates = { ...current.templates, ...Object.fromEntries((['campaign', 'adset', 'ad'] as const).filter((l) => input[l] !== undefined).map((l) => [l, input[l]])) };
    const row = { campaign_template: templates.campaign, adset_template: templates.adset, ad_template: templates.ad, updated_at: ctx.now() };
    const updated = await ctx.db('naming_conventions').where({ brand_id: ctx.brand!.id, account_id: input.accountId }).update(row);
    if (!updated) await ctx.db('naming_conventions').insert({ brand_id: ctx.brand!.id, account_id: input.accountId, ...row });
    await ctx.activity.record({ brandId: ctx.brand!.id, accountId: input.accountId, entityType: 'unknown', entityId: input.accountId, entityName: 'naming convention', action: 'naming_convention.updated' });
    return namingView(ctx, input);
  },
});
