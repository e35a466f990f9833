// Performance reports (get-insights): how a brand's ads did on one ad account, at any level, for a
// preset or a period in the account's time zone, split by one breakdown, narrowed to campaigns or
// to one launch; paged, with totals over every row. The platform's rows are read once per distinct
// request (followed to the end of the platform's paging) and kept for METRICS_CACHE_SECONDS; each
// page and the totals come from that one read. With a tracker connected, campaign rows and the
// totals carry revenue, trackerConversions, profit and roas from one tracker report (profit.ts).

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { validationFailed, type FieldIssue } from '../errors.js';
import { findAdAccount } from '../brands/store.js';
import { liveRead } from '../platforms/live-read.js';
import { resolveDatePreset, type DatePreset } from '../platforms/date-presets.js';
import type { DateWindow, ReportBreakdown, ReportLevel, ReportRow } from '../platforms/port.js';
import { localDate } from '../time/zones.js';
import { campaignFirstTimes, campaignPlatformIds, publishedOnAccount } from '../launches/store.js';
import { referenceIssues } from '../references/resolve.js';
import { figuresOf, profitOf, sumRows } from './figures.js';
import { readTrackerRevenue, type CampaignRevenue } from './profit.js';

/** The longest period since/until may name, and how far back it may start. */
const MAX_PERIOD_DAYS = 93;
const MAX_MONTHS_BACK = 37;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** `date` moved back by whole calendar months (the day clamped to the month's last). */
function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const total = y * 12 + (m - 1) - months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

const daysFrom = (since: string, until: string) => Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`)) / 86_400_000) + 1;

/**
 * The period the input names, in the account's time zone: its preset (default last_7d) or since and
 * until; every wrong parameter is added to `issues`, and then null.
 */
function periodOf(
  input: { datePreset?: DatePreset; since?: string; until?: string },
  now: number,
  timeZone: string,
  issues: FieldIssue[],
  lifetimeSince?: string,
): DateWindow | null {
  const { since, until, datePreset } = input;
  if (since === undefined && until === undefined) return resolveDatePreset(datePreset ?? 'last_7d', now, timeZone, lifetimeSince);
  const before = issues.length;
  if (datePreset !== undefined) issues.push({ field: 'datePreset', code: 'invalid_value', message: 'give a datePreset or since and until, not both' });
  if (since === undefined) issues.push({ field: 'since', code: 'invalid_type', message: 'is required with until' });
  if (until === undefined) issues.push({ field: 'until', code: 'invalid_type', message: 'is required with since' });
  for (const [field, value] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (value !== undefined && !isCalendarDate(value)) issues.push({ field, code: 'invalid_value', message: `${value} is not a date (YYYY-MM-DD)` });
  }
  if (issues.length > before) return null;
  const today = localDate(now, timeZone);
  if (until! > today) issues.push({ field: 'until', code: 'invalid_value', message: `is after today (${today} in ${timeZone})` });
  else if (since! > until!) issues.push({ field: 'since', code: 'invalid_value', message: 'is after until' });
  else if (daysFrom(since!, until!) > MAX_PERIOD_DAYS)
    issues.push({ field: 'since', code: 'invalid_value', message: `the period is ${daysFrom(since!, until!)} days; at most ${MAX_PERIOD_DAYS}` });
  else if (since! < monthsBefore(today, MAX_MONTHS_BACK))
    issues.push({
      field: 'since',
      code: 'invalid_value',
      message: `is more than ${MAX_MONTHS_BACK} months ago (earliest ${monthsBefore(today, MAX_MONTHS_BACK)})`,
    });
  return issues.length > before ? null : { since: since!, until: until! };
}

/** `rows` (by campaign and day) with a row of zero delivery for each day a campaign earned on and has none, in campaign and day order. */
function withEarningDays(rows: ReportRow[], days: Map<string, Map<string, CampaignRevenue>>): ReportRow[] {
  const have = new Set(rows.map((r) => `${r.campaignId}|${r.key}`));
  const names = new Map(rows.map((r) => [r.campaignId!, r.name]));
  const order = new Map([...new Set(rows.map((r) => r.campaignId!))].map((id, i) => [id, i]));
  const added: ReportRow[] = [];
  for (const [campaignId, earned] of days) {
    if (!order.has(campaignId)) continue;
    for (const day of earned.keys()) {
      if (have.has(`${campaignId}|${day}`)) continue;
      added.push({
        campaignId,
        adsetId: null,
        adId: null,
        name: names.get(campaignId) ?? null,
        key: day,
        spendMinorUnits: 0,
        impressions: 0,
        clicks: 0,
        results: 0,
        reach: 0,
      });
    }
  }
  // Always in campaign and day order, so pages cut the same list whichever days the tracker added.
  return [...rows, ...added].sort((a, b) => order.get(a.campaignId!)! - order.get(b.campaignId!)! || (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0));
}

/** A report row as answered: the ids its level needs, its name, the breakdown's key, the figures, and the profit where read. */
function rowView(row: ReportRow, level: ReportLevel, breakdown: ReportBreakdown | null, tracked: ((row: ReportRow) => CampaignRevenue | undefined) | null) {
  const ids: Record<string, string | null> = {};
  if (level !== 'account') ids.campaignId = row.campaignId;
  if (level === 'adset' || level === 'ad') ids.adsetId = row.adsetId;
  if (level === 'ad') ids.adId = row.adId;
  const figures = figuresOf({ spend: row.spendMinorUnits, impressions: row.impressions, clicks: row.clicks, results: row.results }, row.reach);
  return {
    ...ids,
    name: row.name,
    ...(breakdown ? { [breakdown]: row.key } : {}),
    ...figures,
    ...(tracked ? profitOf(row.spendMinorUnits, tracked(row)) : {}),
  };
}

const getInsights = defineOperation({
  name: 'get-insights',
  method: 'GET',
  path: '/brands/{brandId}/ad-accounts/{accountId}/insights',
  scope: 'read',
  errors: ['capability_unsupported', 'unavailable'],
  idempotency: 'none',
  input: 'get-insights#/$defs/input',
  output: 'get-insights#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  tag: 'ad-accounts',
  toolset: 'monitor',
  summary: 'Spend and results per account, campaign, ad set or ad over a period, by day, age, gender, country or placement; with a tracker, profit and roas.',
  description:
    "Money in minor units of the account currency; ctr in percent; totals cover every page. Dates are in the account's time zone. " +
    'With a connected tracker, campaign rows (by day too) and totals carry revenue, trackerConversions, profit and roas (trackerError when it does not answer); ' +
    "a campaign's revenue counts from its first day on the platform, and what the tracker dates before it is totals.revenueBeforeLaunch, never in roas.",
  uses: ['platforms', 'metrics', 'page', 'trackers', 'secrets', 'config'],
  async handler(ctx, input) {
    const account = await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId);
    const issues: FieldIssue[] = [];
    const level = input.level ?? 'campaign';
    const breakdown = input.breakdown ?? null;
    let lifetimeSince: string | undefined;
    if (input.datePreset === 'maximum') {
      const { sample } = await publishedOnAccount(ctx.db, ctx.brand.id, account.accountId, 1_000);
      const earliest = sample.reduce<number | null>((min, s) => (min === null || s.publishedAt < min ? s.publishedAt : min), null);
      lifetimeSince = earliest === null ? undefined : localDate(earliest, account.timezone);
    }
    const window = periodOf(input, ctx.now(), account.timezone, issues, lifetimeSince);
    let campaignIds: string[] | null = input.campaignIds ? [...new Set(input.campaignIds.split(','))] : null;
    if (input.launchId !== undefined) {
      if (campaignIds) issues.push({ field: 'launchId', code: 'invalid_value', message: 'give campaignIds or launchId, not both' });
      else {
        const [missing] = await referenceIssues(ctx.db, ctx.principal, [{ kind: 'launch', field: 'launchId', id: input.launchId, brandId: ctx.brand.id }]);
        if (missing) issues.push(missing);
        else campaignIds = await campaignPlatformIds(ctx.db, [input.launchId], account.accountId);
      }
    }
    if (issues.length) throw validationFailed(issues);
    const period = window!;
    const offset = Number(ctx.page.position()?.[0] ?? 0);
    const query = { level, window: period, breakdown, campaignIds };
    const read =
      campaignIds && !campaignIds.length
        ? { value: [] as ReportRow[], asOf: new Date(ctx.now()).toISOString() }
        : await liveRead<ReportRow[]>(ctx, account, 'report', query, () => ctx.platforms.adapterFor(account.platform).report(account, query));
    const asOf = read.asOf;
    let rows = read.value;

    // Profit: campaign level only (the tracker knows campaigns by sub_id_3), one tracker read for every row's campaign.
    // Each campaign's revenue counts from its first day on the platform (profit.ts); by day, each row its day's.
    let tracked: Map<string, CampaignRevenue> | null = null;
    let trackedDays: Map<string, Map<string, CampaignRevenue>> | null = null;
    let beforeLaunch = 0;
    let trackerError: string | null = null;
    if (level === 'campaign') {
      const ids = [...new Set(rows.map((r) => r.campaignId!))];
      const firstDays = new Map([...(await campaignFirstTimes(ctx.db, account.accountId, ids))].map(([id, at]) => [id, localDate(at, account.timezone)]));
      // A campaign that came to be after the period earned nothing in it: a report of past days stays as it was.
      const existed = ids.filter((id) => (firstDays.get(id) ?? '') <= period.until);
      const revenue = await readTrackerRevenue(
        { trackers: ctx.trackers, secrets: ctx.secrets, fxRates: ctx.config.fxRates },
        ctx.db,
        ctx.brand.id,
        account,
        period,
        existed,
        { byDay: breakdown === 'day', firstDays },
      );
      if (revenue.kind === 'ok') {
        tracked = revenue.byCampaign;
        trackedDays = revenue.byDay;
        beforeLaunch = revenue.beforeLaunch;
      } else if (revenue.kind === 'error') trackerError = revenue.message;
    }
    // By day, a day a campaign earned on without a row of delivery gets a row of its own (spend 0),
    // so that the rows add up to the totals, revenue included.
    if (trackedDays && breakdown === 'day') rows = withEarningDays(rows, trackedDays);
    const sums = sumRows(rows);
    let totals: Record<string, unknown> = figuresOf(sums, null);
    if (tracked) {
      const all = { revenue: 0, conversions: 0 };
      for (const id of new Set(rows.map((r) => r.campaignId!))) {
        const t = tracked.get(id);
        if (t) {
          all.revenue += t.revenue;
          all.conversions += t.conversions;
        }
      }
      totals = { ...totals, ...profitOf(sums.spend, all), ...(beforeLaunch ? { revenueBeforeLaunch: beforeLaunch } : {}) };
    }
    const page = rows.slice(offset, offset + input.limit);
    const accountName = level === 'account' ? ((await findAdAccount(ctx.db, ctx.brand.id, account.accountId))?.name ?? account.accountId) : null;
    // Per-row profit where a row is one campaign over the whole period, or one campaign on one day.
    const rowTracked =
      tracked && !breakdown
        ? (r: ReportRow) => tracked.get(r.campaignId!)
        : trackedDays && breakdown === 'day'
          ? (r: ReportRow) => trackedDays.get(r.campaignId!)?.get(r.key!)
          : null;
    return {
      asOf,
      accountId: account.accountId,
      currency: account.currency,
      timezone: account.timezone,
      level,
      period,
      breakdown,
      rows: page.map((r) => rowView(accountName === null ? r : { ...r, name: accountName }, level, breakdown, rowTracked)),
      totals,
      ...(trackerError ? { trackerError } : {}),
      nextCursor: offset + input.limit < rows.length ? ctx.page.next([offset + input.limit]) : null,
    };
  },
});

/** The reports area's operations. */
export const operations: OperationDefinition[] = [getInsights];
