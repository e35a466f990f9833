// The sandbox ad platform: both platforms simulated in the service's own database, so it survives
// restarts and serves several processes. Ids have each platform's real format.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/connection.js';
import {
  PlatformError,
  type AdAccount,
  type Budget,
  type CampaignPage,
  type CampaignQuery,
  type DateWindow,
  type Insights,
  type InsightsLevel,
  type LeadFormPage,
  type ObjectInsights,
  type ObjectLevel,
  type ObjectRef,
  type ObjectSpec,
  type OptionItem,
  type OptionType,
  type PlatformAdapter,
  type PlatformCampaign,
  type PlatformName,
  type PlatformStatus,
  type ReportBreakdown,
  type ReportQuery,
  type ReportRow,
  AGE_BRACKETS,
  type CreativeFile,
  type UploadedCreative,
} from '../port.js';
import { CONVERSION_EVENTS, INTERESTS, LOCATIONS } from './catalog.js';
import { sandboxMinimums, type MetaAccountFacts, type MetaFactsWanted } from '../meta/rules.js';
import { advantagePlusOf, type AdvantageAdSet, type AdvantageStateInfo } from '../meta/advantage.js';
import { CONVERSION_EVENTS as TIKTOK_CONVERSION_EVENTS } from '../tiktok/mapping.js';
import {
  NO_INSIGHTS,
  addInsights,
  deliver,
  deliverDaily,
  reachOf,
  splitExactly,
  weightsOf,
  type DayDelivery,
  type DeliveringObject,
  type Delivery,
  type StatusChange,
} from './delivery.js';
import { TIKTOK_PLACEMENTS } from '../tiktok/mapping.js';
import { perObject } from '../insights.js';
import { nonCountries, refusalOf } from './refusals.js';
import {
  adSetsUnder,
  allObjects,
  assetPayloads,
  campaignPage,
  childCounts,
  existingObjectIds,
  insertObjects,
  leadForms,
  creativeObjectIds,
  objectIdsByMarkers,
  heldObjectIds,
  childIds,
  objectSettings,
  objectsWhere,
  setObjectBudget,
  setObjectStatus,
  statusHistories,
  updateObjectFields,
  type CampaignRow,
  type TreeRow,
} from './store.js';

/** A name carrying these words marks the sandbox's "spends, no results" objects (they and their children never convert). */
export const NO_RESULTS_MARK = /no results/i;

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function budgetOf(row: TreeRow, share = 1): Budget | null {
  if (row.budgetCents === null) return null;
  return { period: row.budgetPeriod!, amountMinorUnits: Math.floor(row.budgetCents / share) };
}

const ASSET_KINDS: Partial<Record<OptionType, string>> = { pixels: 'pixels', pages: 'pages', audiences: 'audiences', profileAccounts: 'profileAccounts' };

function randomDigits(n: number): string {
  let out = '';
  for (const b of crypto.randomBytes(n)) out += String(b % 10);
  return out;
}

/** A new object id in the platform's format: Meta 17-digit numeric, TikTok 19-digit numeric. */
export function newPlatformId(platform: PlatformName): string {
  return platform === 'meta' ? `1202${randomDigits(13)}` : `17${randomDigits(17)}`;
}

function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * The simulated Meta's advantage_state_info of a campaign: its levers as a preview computes them
 * (meta/advantage.ts), ENABLED or DISABLED each, and the Advantage+ state they make.
 */
function sandboxAdvantageState(row: CampaignRow, adSets: AdvantageAdSet[]): AdvantageStateInfo {
  const budget = row.budgetCents === null ? null : { period: row.budgetPeriod! };
  const view = advantagePlusOf(row.objective ?? undefined, budget, adSets);
  const state = (l: { on: boolean }) => (l.on ? 'ENABLED' : 'DISABLED');
  return {
    advantage_state: view.state,
    advantage_budget_state: state(view.levers.budget),
    advantage_audience_state: state(view.levers.audience),
    advantage_placement_state: state(view.levers.placements),
  };
}

function toCampaign(row: CampaignRow): PlatformCampaign {
  const budget: Budget | null = row.budgetCents === null ? null : { period: row.budgetPeriod!, amountMinorUnits: row.budgetCents };
  return {
    id: row.objectId,
    name: row.name,
    status: row.status,
    effectiveStatus: row.status,
    objective: row.objective ?? 'OUTCOME_TRAFFIC',
    budget,
    budgetLevel: budget ? 'campaign' : 'adset',
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

const byObjectId = (a: TreeRow, b: TreeRow) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0);

function sumDays(days: DayDelivery[]): Insights {
  let total = NO_INSIGHTS;
  for (const d of days) total = addInsights(total, d);
  return total;
}

function emptyRow(name: string): ReportRow {
  return { campaignId: null, adsetId: null, adId: null, name, key: null, spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, reach: 0 };
}

/** The values each non-day breakdown splits into, in the order answered. */
function bucketsOf(breakdown: Exclude<ReportBreakdown, 'day'>, platform: PlatformName): readonly string[] {
  switch (breakdown) {
    case 'age':
      return AGE_BRACKETS;
    case 'gender':
      return ['female', 'male', 'unknown'];
    case 'country':
      return SANDBOX_COUNTRIES;
    case 'placement':
      return platform === 'meta' ? META_PLACEMENTS : TIKTOK_PLACEMENTS;
  }
}

/** Countries the sandbox's audiences come from. */
const SANDBOX_COUNTRIES = ['US', 'GB', 'CA', 'DE'];
/** Meta placements as the report names them: publisher platform and position. */
const META_PLACEMENTS = ['facebook_feed', 'facebook_story', 'instagram_feed', 'instagram_story', 'instagram_reels'];

/** The report rows of one object (or the account) from its days: one row, one per day, or its total split by the breakdown. */
function rowsOfSubject(
  ids: Pick<ReportRow, 'campaignId' | 'adsetId' | 'adId'>,
  seed: string,
  name: string | null,
  days: DayDelivery[],
  breakdown: ReportBreakdown | null,
  platform: PlatformName,
): ReportRow[] {
  // Rows are built field by field in one shape (no spreads): a report may hold 90,000 of them.
  const row = (key: string | null, spend: number, impressions: number, clicks: number, results: number, reach: number): ReportRow => ({
    campaignId: ids.campaignId,
    adsetId: ids.adsetId,
    adId: ids.adId,
    name,
    key,
    spendMinorUnits: spend,
    impressions,
    clicks,
    results,
    reach,
  });
  if (breakdown === 'day') {
    const out: ReportRow[] = new Array(days.length);
    for (let i = 0; i < days.length; i++) {
      const d = days[i];
      out[i] = row(d.date, d.spendMinorUnits, d.impressions, d.clicks, d.results, reachOf(d.impressions, d.spendMinorUnits > 0 ? 1 : 0));
    }
    return out;
  }
  const total = sumDays(days);
  const reach = reachOf(total.impressions, days.filter((d) => d.spendMinorUnits > 0).length);
  if (!breakdown) return [row(null, total.spendMinorUnits, total.impressions, total.clicks, total.results, reach)];
  if (!total.impressions && !total.spendMinorUnits) return [];
  const buckets = bucketsOf(breakdown, platform);
  const weights = weightsOf(`${seed}|${breakdown}`, buckets.length);
  // "unknown" ages and genders are a small part.
  buckets.forEach((b, i) => {
    if (b === 'unknown') weights[i] *= 0.05;
  });
  const spend = splitExactly(total.spendMinorUnits, weights);
  const impressions = splitExactly(total.impressions, weights);
  const clicks = splitExactly(total.clicks, weights);
  const results = splitExactly(total.results, weights);
  const reaches = splitExactly(reach, weights);
  return buckets
    .map((key, i) => row(key, spend[i], impressions[i], clicks[i], results[i], reaches[i]))
    .filter((r) => r.impressions > 0 || r.spendMinorUnits > 0);
}

/** One object ready to deliver: itself, and the status histories of the parents that gate it. */
interface Delivering {
  object: DeliveringObject;
  gates: StatusChange[][];
}

/** An account tree's objects as they deliver (see SandboxAdapter.deliveryTree). */
interface DeliveryTree {
  /** A campaign with its own budget. */
  campaign(c: TreeRow): Delivering;
  /** An ad set with its own budget under campaign `c` (which has none). */
  budgetedAdset(c: TreeRow, a: TreeRow): Delivering;
  /** An ad set: its own budget, or its share of its campaign's. */
  adset(a: TreeRow): Delivering;
  /** An ad: its share of its ad set's budget; null when its ad set was not read. */
  ad(ad: TreeRow): (Delivering & { campaignId: string }) | null;
}

export class SandboxPlatform implements PlatformAdapter {
  constructor(
    readonly platform: PlatformName,
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  async listCampaigns(account: AdAccount, query: CampaignQuery): Promise<CampaignPage> {
    const filters: Array<[string, unknown[]]> = [];
    if (query.statuses?.length) filters.push([`status in (${query.statuses.map(() => '?').join(', ')})`, query.statuses]);
    if (query.nameQuery) filters.push(["name_lower like ? escape '!'", [likePattern(query.nameQuery)]]);
    if (query.after && !/^\d+$/.test(query.after)) throw new PlatformError('invalid_request', 'The paging position is not valid.', { field: 'after' });
    const { rows, total, matched } = await campaignPage(this.knex, account.accountId, filters, query.after ? Number(query.after) : null, query.limit + 1);
    const items = rows.slice(0, query.limit);
    // Meta answers each campaign's advantage_state_info: the simulated Meta computes it from the campaign and its ad sets.
    const adSets =
      this.platform === 'meta'
        ? await adSetsUnder(
            this.knex,
            account.accountId,
            items.map((r) => r.objectId),
          )
        : null;
    return {
      campaigns: items.map((r) => ({ ...toCampaign(r), advantageStateInfo: adSets ? sandboxAdvantageState(r, adSets.get(r.objectId) ?? []) : null })),
      totalInAccount: total,
      matched,
      after: rows.length > query.limit ? String(items[items.length - 1].rowId) : null,
    };
  }

  async listLeadForms(account: AdAccount, pageId: string, after: string | null, limit: number): Promise<LeadFormPage> {
    const rows = await leadForms(this.knex, account.accountId, pageId, after ? Number(after) : null, limit + 1);
    const items = rows.slice(0, limit);
    return {
      leadForms: items.map((r) => ({ id: r.assetId, name: r.name })),
      after: rows.length > limit ? String(items[items.length - 1].rowId) : null,
    };
  }

  async listOptions(account: AdAccount, type: OptionType, query?: string): Promise<OptionItem[]> {
    if (type === 'pages' && this.platform === 'tiktok') {
      throw new PlatformError('capability_unsupported', 'TikTok ad accounts have no pages; use profileAccounts (TikTok identities).');
    }
    const needle = query?.toLowerCase();
    const matches = (item: OptionItem) => !needle || item.name.toLowerCase().includes(needle) || item.id.toLowerCase() === needle;
    const kind = ASSET_KINDS[type];
    if (kind) {
      const payloads = await assetPayloads(this.knex, account.accountId, kind);
      return payloads
        .map((payload) => {
          const { accountId: _omit, ...item } = JSON.parse(payload) as OptionItem & { accountId: string };
          return item as OptionItem;
        })
        .filter(matches);
    }
    // Conversion events by the platform's own names (TikTok's optimization_event values are not Meta's).
    const events = this.platform === 'tiktok' ? TIKTOK_CONVERSION_EVENTS : CONVERSION_EVENTS;
    const builtIn = type === 'interests' ? INTERESTS : type === 'locations' ? LOCATIONS : events;
    return builtIn.filter(matches);
  }

  private async histories(ids: string[]): Promise<Map<string, StatusChange[]>> {
    const out = new Map<string, StatusChange[]>();
    for (const r of await statusHistories(this.knex, ids)) {
      const list = out.get(r.objectId) ?? [];
      list.push({ status: r.status as StatusChange['status'], at: r.at });
      out.set(r.objectId, list);
    }
    return out;
  }

  async insights(account: AdAccount, objectIds: string[], window: DateWindow): Promise<Insights> {
    if (!objectIds.length) return NO_INSIGHTS;
    const campaigns = await objectsWhere(this.knex, account.accountId, 'campaign', 'objectId', objectIds);
    const adsets = await objectsWhere(
      this.knex,
      account.accountId,
      'adset',
      'parentId',
      campaigns.map((c) => c.objectId),
    );
    const history = await this.histories([...campaigns.map((c) => c.objectId), ...adsets.map((a) => a.objectId)]);
    const now = this.now();
    let total = NO_INSIGHTS;
    for (const c of campaigns) {
      const campaignHistory = history.get(c.objectId) ?? [];
      if (c.budgetCents !== null) {
        total = addInsights(total, deliver({ id: c.objectId, budget: budgetOf(c), history: campaignHistory }, window, account.timezone, now));
        continue;
      }
      for (const a of adsets.filter((s) => s.parentId === c.objectId && s.budgetCents !== null)) {
        total = addInsights(
          total,
          deliver({ id: a.objectId, budget: budgetOf(a), history: history.get(a.objectId) ?? [] }, window, account.timezone, now, [campaignHistory]),
        );
      }
    }
    return total;
  }

  private async rowsOf(account: AdAccount, level: ObjectLevel, column: 'objectId' | 'parentId', ids: string[]): Promise<TreeRow[]> {
    const out: TreeRow[] = [];
    for (const part of chunks([...new Set(ids)], 500)) out.push(...(await objectsWhere(this.knex, account.accountId, level, column, part)));
    return out;
  }

  /** Children per parent among every object of `level` under `parentIds` (the share each gets of a parent's budget). */
  private async childCounts(account: AdAccount, level: ObjectLevel, parentIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const part of chunks([...new Set(parentIds)], 500)) {
      for (const [parent, n] of await childCounts(this.knex, account.accountId, level, part)) out.set(parent, n);
    }
    return out;
  }

  /**
   * What delivery needs of one account's tree, shared by live insights and reports: each object as
   * a delivering object (its budget, status history and whether it converts) with the status
   * histories of its parents that gate it. A campaign with a budget delivers it; an ad set without
   * one gets an even share of its campaign's, an ad an even share of its ad set's (children are
   * counted only when `shares` says those levels are asked for).
   */
  private async deliveryTree(
    account: AdAccount,
    campaigns: TreeRow[],
    adsets: TreeRow[],
    ads: TreeRow[],
    shares: { adsetShares: boolean; adShares: boolean },
  ): Promise<DeliveryTree> {
    const none = new Map<string, number>();
    const adsetsPerCampaign = shares.adsetShares
      ? await this.childCounts(
          account,
          'adset',
          campaigns.map((c) => c.objectId),
        )
      : none;
    const adsPerAdset = shares.adShares
      ? await this.childCounts(
          account,
          'ad',
          adsets.map((a) => a.objectId),
        )
      : none;
    const history = await this.histories([...campaigns, ...adsets, ...ads].map((r) => r.objectId));
    const byId = new Map([...campaigns, ...adsets].map((r) => [r.objectId, r]));
    const h = (id: string) => history.get(id) ?? [];
    const converts = (...rows: Array<TreeRow | undefined>) => !rows.some((r) => r && NO_RESULTS_MARK.test(r.name));
    /** The budget an ad set delivers on: its own, or its share of its campaign's. */
    const adsetBudget = (a: TreeRow): Budget | null => {
      if (a.budgetCents !== null) return budgetOf(a);
      const c = byId.get(a.parentId!);
      return c ? budgetOf(c, adsetsPerCampaign.get(c.objectId) ?? 1) : null;
    };
    return {
      campaign: (c) => ({ object: { id: c.objectId, budget: budgetOf(c), history: h(c.objectId), converts: converts(c) }, gates: [] }),
      budgetedAdset: (c, a) => ({ object: { id: a.objectId, budget: budgetOf(a), history: h(a.objectId), converts: converts(c, a) }, gates: [h(c.objectId)] }),
      adset: (a) => ({
        object: { id: a.objectId, budget: adsetBudget(a), history: h(a.objectId), converts: converts(byId.get(a.parentId!), a) },
        gates: [h(a.parentId!)],
      }),
      ad: (ad) => {
        const a = byId.get(ad.parentId!);
        if (!a) return null;
        const budget = adsetBudget(a);
        const share = budget ? { ...budget, amountMinorUnits: Math.floor(budget.amountMinorUnits / (adsPerAdset.get(a.objectId) ?? 1)) } : null;
        return {
          object: { id: ad.objectId, budget: share, history: h(ad.objectId), converts: converts(byId.get(a.parentId!), a, ad) },
          gates: [h(a.objectId), h(a.parentId!)],
          campaignId: a.parentId!,
        };
      },
    };
  }

  /**
   * Per-object delivery. A campaign with a budget delivers it; one without sums its ad sets. An ad
   * set without a budget gets an even share of its campaign's; an ad an even share of its ad set's
   * (or of its ad set's share). Each object is gated by its own status and its parents'.
   */
  async insightsByObject(account: AdAccount, level: InsightsLevel, objectIds: string[], window: DateWindow): Promise<ObjectInsights[]> {
    const ids = [...new Set(objectIds)];
    if (!ids.length) return [];
    const ads = level === 'ad' ? await this.rowsOf(account, 'ad', 'objectId', ids) : [];
    const adsets =
      level === 'campaign'
        ? await this.rowsOf(account, 'adset', 'parentId', ids)
        : await this.rowsOf(account, 'adset', 'objectId', level === 'adset' ? ids : ads.map((a) => a.parentId!));
    const campaigns = await this.rowsOf(account, 'campaign', 'objectId', level === 'campaign' ? ids : adsets.map((a) => a.parentId!));
    const tree = await this.deliveryTree(account, campaigns, adsets, ads, { adsetShares: level !== 'campaign', adShares: level === 'ad' });
    const now = this.now();
    const tz = account.timezone;
    const out = new Map<string, Delivery>();
    if (level === 'campaign') {
      for (const c of campaigns) {
        if (c.budgetCents !== null) {
          const t = tree.campaign(c);
          out.set(c.objectId, deliver(t.object, window, tz, now, t.gates));
          continue;
        }
        const parts = adsets
          .filter((a) => a.parentId === c.objectId && a.budgetCents !== null)
          .map((a) => {
            const t = tree.budgetedAdset(c, a);
            return deliver(t.object, window, tz, now, t.gates);
          });
        const total = parts.reduce<Insights>((sum, d) => addInsights(sum, d), NO_INSIGHTS);
        out.set(c.objectId, { ...total, reach: parts.reduce((sum, d) => sum + d.reach, 0) });
      }
    } else if (level === 'adset') {
      for (const a of adsets) {
        const t = tree.adset(a);
        out.set(a.objectId, deliver(t.object, window, tz, now, t.gates));
      }
    } else {
      for (const ad of ads) {
        const t = tree.ad(ad);
        if (t) out.set(ad.objectId, deliver(t.object, window, tz, now, t.gates));
      }
    }
    return perObject(ids, out);
  }

  /**
   * A performance report from the simulated delivery: each object's days as insightsByObject
   * delivers them (the same budgets, shares and gates), so the same objects and period always read
   * the same. `day` rows are those days; the other breakdowns split each object's total over the
   * period by stable weights, exactly (the parts add up to the unbroken figure).
   */
  async report(account: AdAccount, query: ReportQuery): Promise<ReportRow[]> {
    const { level, window, breakdown } = query;
    const campaigns = (
      query.campaignIds ? await this.rowsOf(account, 'campaign', 'objectId', query.campaignIds) : await allObjects(this.knex, account.accountId, 'campaign')
    ).sort((a, b) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));
    if (!campaigns.length) return level === 'account' && !breakdown ? [emptyRow(account.accountId)] : [];
    const adsets = (
      await this.rowsOf(
        account,
        'adset',
        'parentId',
        campaigns.map((c) => c.objectId),
      )
    ).sort(byObjectId);
    const ads =
      level === 'ad'
        ? (
            await this.rowsOf(
              account,
              'ad',
              'parentId',
              adsets.map((a) => a.objectId),
            )
          ).sort(byObjectId)
        : [];
    const tree = await this.deliveryTree(account, campaigns, adsets, ads, { adsetShares: level === 'adset' || level === 'ad', adShares: level === 'ad' });
    const now = this.now();
    const tz = account.timezone;
    const adsetsOf = new Map<string, TreeRow[]>();
    for (const a of adsets) adsetsOf.set(a.parentId!, [...(adsetsOf.get(a.parentId!) ?? []), a]);
    /** A campaign's days: its own budget, or the sum of its ad sets' (each gated by the campaign). */
    const campaignDays = (c: TreeRow): DayDelivery[] => {
      if (c.budgetCents !== null) {
        const t = tree.campaign(c);
        return deliverDaily(t.object, window, tz, now, t.gates);
      }
      const byDate = new Map<string, DayDelivery>();
      for (const a of adsetsOf.get(c.objectId) ?? []) {
        if (a.budgetCents === null) continue;
        const t = tree.budgetedAdset(c, a);
        for (const d of deliverDaily(t.object, window, tz, now, t.gates)) {
          const into = byDate.get(d.date);
          byDate.set(d.date, into ? { ...addInsights(into, d), date: d.date } : d);
        }
      }
      return [...byDate.values()].sort((x, y) => (x.date < y.date ? -1 : 1));
    };
    // The objects of the level, each with its ids and days.
    const subjects: Array<{ ids: Pick<ReportRow, 'campaignId' | 'adsetId' | 'adId'>; seed: string; name: string | null; days: DayDelivery[] }> = [];
    if (level === 'campaign' || level === 'account') {
      for (const c of campaigns)
        subjects.push({ ids: { campaignId: c.objectId, adsetId: null, adId: null }, seed: c.objectId, name: c.name, days: campaignDays(c) });
    } else if (level === 'adset') {
      for (const a of adsets) {
        const t = tree.adset(a);
        const days = deliverDaily(t.object, window, tz, now, t.gates);
        subjects.push({ ids: { campaignId: a.parentId, adsetId: a.objectId, adId: null }, seed: a.objectId, name: a.name, days });
      }
    } else {
      for (const ad of ads) {
        const t = tree.ad(ad);
        if (!t) continue;
        const days = deliverDaily(t.object, window, tz, now, t.gates);
        subjects.push({ ids: { campaignId: t.campaignId, adsetId: ad.parentId, adId: ad.objectId }, seed: ad.objectId, name: ad.name, days });
      }
    }
    if (level === 'account') {
      // The account as one subject: every campaign's days, summed per date.
      const byDate = new Map<string, DayDelivery>();
      let reach = 0;
      for (const s of subjects) {
        reach += reachOf(sumDays(s.days).impressions, s.days.filter((d) => d.spendMinorUnits > 0).length);
        for (const d of s.days) {
          const into = byDate.get(d.date);
          byDate.set(d.date, into ? { ...addInsights(into, d), date: d.date } : d);
        }
      }
      const days = [...byDate.values()].sort((x, y) => (x.date < y.date ? -1 : 1));
      const rows = rowsOfSubject({ campaignId: null, adsetId: null, adId: null }, account.accountId, null, days, breakdown, this.platform);
      if (!breakdown) rows[0].reach = reach;
      return rows;
    }
    return subjects.flatMap((s) => rowsOfSubject(s.ids, s.seed, s.name, s.days, breakdown, this.platform));
  }

  /** Refuses the whole call, creating nothing, when the platform would refuse one of `specs`. */
  private async refuseInvalid(account: AdAccount, specs: ObjectSpec[]): Promise<void> {
    const parents = specs.filter((s) => s.level === 'adset' && s.parentId).map((s) => s.parentId!);
    const campaigns = parents.length ? await this.rowsOf(account, 'campaign', 'objectId', parents) : [];
    const refs = specs.filter((s) => s.creative).map((s) => s.creative!.ref);
    const creatives = new Set<string>();
    for (const part of chunks([...new Set(refs)], 500)) for (const id of await creativeObjectIds(this.knex, account.accountId, part)) creatives.add(id);
    const facts = { campaignBudgets: new Map(campaigns.map((c) => [c.objectId, budgetOf(c)])), creatives };
    for (const spec of specs) {
      const refusal = refusalOf(this.platform, spec, facts, account.smartPlusAllowed === true);
      if (refusal) throw refusal;
    }
  }

  async createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]> {
    await this.refuseInvalid(account, specs);
    const now = this.now();
    for (;;) {
      const refs = specs.map((s) => ({ level: s.level, id: newPlatformId(this.platform) }));
      try {
        await this.knex.transaction((trx) =>
          insertObjects(
            trx,
            specs.map((s, i) => ({
              platform: this.platform,
              accountId: account.accountId,
              level: s.level,
              objectId: refs[i].id,
              parentId: s.parentId,
              name: s.name,
              marker: s.marker,
              status: s.status,
              objective: s.objective ?? null,
              budget: s.budget ?? null,
              settings: s.settings ?? {},
              at: now,
            })),
          ),
        );
        return refs;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }

  async findCreated(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, markers: string[]): Promise<Map<string, ObjectRef>> {
    const found = new Map<string, ObjectRef>();
    for (const part of chunks([...new Set(markers)], 500)) {
      for (const [marker, id] of await objectIdsByMarkers(this.knex, account.accountId, level, part)) found.set(marker, { level, id });
    }
    return found;
  }

  /** The sandbox's store is the whole truth: an id it does not hold undeleted is gone. */
  async confirmRecorded(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, ids: string[]): Promise<Map<string, 'held' | 'gone'>> {
    const held = new Set<string>();
    for (const part of chunks([...new Set(ids)], 500)) for (const id of await heldObjectIds(this.knex, account.accountId, level, part)) held.add(id);
    return new Map(ids.map((id) => [id, held.has(id) ? 'held' : 'gone']));
  }

  async childrenOf(account: AdAccount, level: 'adset' | 'ad', parentIds: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const part of chunks([...new Set(parentIds)], 500)) ids.push(...(await childIds(this.knex, account.accountId, level, part)));
    return ids;
  }

  /** The sandbox targets every ISO 3166-1 alpha-2 country, and nothing else. */
  async unknownCountries(_account: AdAccount, countries: string[]): Promise<string[]> {
    return nonCountries(countries);
  }

  /**
   * Meta's rules in the sandbox: minimum budgets from a table per currency (raised for a manual bid);
   * the DSA names are the account's own (a sandbox account has no Meta defaults); cities' countries from
   * its location list.
   */
  async metaAccountFacts(account: AdAccount, wanted: MetaFactsWanted = { dsa: false }): Promise<MetaAccountFacts> {
    const city = (key: string) => LOCATIONS.find((l) => l.type === 'city' && l.id === key)?.countryCode as string | undefined;
    return {
      minimumBudgets: sandboxMinimums(account.currency),
      bidMinimums: new Map((wanted.bids ?? []).map((b) => [b, sandboxMinimums(account.currency, b)])),
      dsaBeneficiary: account.dsaBeneficiary ?? null,
      dsaPayor: account.dsaPayor ?? null,
      cityCountries: new Map((wanted.cities ?? []).flatMap((c) => (city(c) ? [[c, city(c)!] as const] : []))),
    };
  }

  /** Keeps the upload as a creative object of the account (a video with its cover): ads must name one it holds. */
  async uploadCreative(account: AdAccount, file: CreativeFile): Promise<UploadedCreative> {
    const now = this.now();
    for (;;) {
      const ref = newPlatformId(this.platform);
      const cover = file.type === 'video' ? newPlatformId(this.platform) : null;
      const object = (objectId: string, type: 'image' | 'video', extra: Record<string, unknown> = {}) => ({
        platform: this.platform,
        accountId: account.accountId,
        level: 'creative' as const,
        objectId,
        parentId: null,
        name: file.name.slice(0, 400),
        marker: null,
        status: 'ACTIVE',
        objective: null,
        budget: null,
        settings: { type, mime: file.mime, width: file.width, height: file.height, md5: file.md5, bytes: file.bytes.length, ...extra },
        at: now,
      });
      try {
        await this.knex.transaction((trx) =>
          insertObjects(trx, [object(ref, file.type), ...(cover ? [object(cover, 'image', { coverOf: ref, mime: 'image/jpeg' })] : [])]),
        );
        return { ref, thumbnailRef: cover };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }

  private async existing(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    const ids = refs.map((r) => r.id);
    const found = await existingObjectIds(this.knex, account.accountId, ids);
    const missing = ids.filter((id) => !found.includes(id));
    if (missing.length) throw new PlatformError('not_found', `No object ${missing[0]} in ad account ${account.accountId}.`);
  }

  async updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void> {
    await this.existing(account, [ref]);
    const settings = changes.settings ? { ...(await objectSettings(this.knex, ref.id)), ...changes.settings } : undefined;
    await updateObjectFields(this.knex, ref.id, { name: changes.name, settings }, this.now());
  }

  private async changeStatus(account: AdAccount, refs: ObjectRef[], status: PlatformStatus, check = true): Promise<void> {
    if (!refs.length) return;
    if (check) await this.existing(account, refs);
    await setObjectStatus(
      this.knex,
      refs.map((r) => r.id),
      status,
      this.now(),
    );
  }

  setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void> {
    return this.changeStatus(account, refs, status);
  }

  async setStatusEach(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<Array<PlatformError | null>> {
    if (!refs.length) return [];
    const found = new Set<string>();
    for (const part of chunks([...new Set(refs.map((r) => r.id))], 500)) {
      for (const id of await existingObjectIds(this.knex, account.accountId, part)) found.add(id);
    }
    const known = refs.filter((r) => found.has(r.id));
    if (known.length) await this.changeStatus(account, known, status, false);
    return refs.map((r) => (found.has(r.id) ? null : new PlatformError('not_found', `No object ${r.id} in ad account ${account.accountId}.`)));
  }

  async setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') {
      throw new PlatformError('capability_unsupported', `A budget can be set on a campaign or an ad set, not on a ${ref.level}.`);
    }
    await this.existing(account, [ref]);
    await setObjectBudget(this.knex, ref.id, budget, this.now());
  }

  deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    return this.changeStatus(account, refs, 'DELETED');
  }
}
