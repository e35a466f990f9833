// /console/brands/{brandId}/reports: get-insights for an ad account chosen on the page, with the REST
// query string (?accountId=&level=&datePreset=&since=&until=&breakdown=): a chart of spend per day
// (and, with a connected tracker, revenue and ROAS), the rows in a table whose last row is the
// answer's totals, and the same rows as CSV (?format=csv, money in minor units).

import { ServiceError, type FieldIssue } from '../../../src/errors.js';
import { esc, scrollBox, select } from '../layout.js';
import { count, money, percent, ratio } from '../format.js';
import { spendChart, type DayPoint } from '../chart.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import { one, type Download, type Page } from './page.js';
import { datesBetween } from '../../../src/time/zones.js';

interface Row {
  campaignId?: string;
  adsetId?: string;
  adId?: string;
  name: string | null;
  day?: string;
  age?: string;
  gender?: string;
  country?: string;
  placement?: string;
  spend: number;
  impressions: number;
  clicks: number;
  reach: number | null;
  results: number;
  ctr: number | null;
  cpc: number | null;
  cpm: number | null;
  costPerResult: number | null;
  revenue?: number;
  trackerConversions?: number;
  profit?: number;
  roas?: number | null;
}

interface Insights {
  accountId: string;
  currency: string;
  timezone: string;
  level: string;
  period: { since: string; until: string };
  breakdown: string | null;
  rows: Row[];
  totals: Omit<Row, 'name' | 'reach'> & { reach: null; revenueBeforeLaunch?: number };
  trackerError?: string;
  nextCursor: string | null;
}

const PRESETS: Array<readonly [string, string]> = [
  ['', 'Custom dates (From and To)'],
  ['today', 'Today'],
  ['yesterday', 'Yesterday'],
  ['this_week_sun_today', 'This week'],
  ['last_7d', 'Last 7 days'],
  ['last_14d', 'Last 14 days'],
  ['last_28d', 'Last 28 days'],
  ['last_30d', 'Last 30 days'],
  ['last_90d', 'Last 90 days'],
  ['this_month', 'This month'],
  ['last_month', 'Last month'],
  ['maximum', 'Lifetime'],
];
const LEVELS: Array<readonly [string, string]> = [
  ['account', 'Account'],
  ['campaign', 'Campaign'],
  ['adset', 'Ad set'],
  ['ad', 'Ad'],
];
const BREAKDOWNS: Array<readonly [string, string]> = [
  ['', 'None'],
  ['day', 'Day'],
  ['age', 'Age'],
  ['gender', 'Gender'],
  ['country', 'Country'],
  ['placement', 'Placement'],
];
/** The most rows a report reads (pages of 500), past which the page says it stopped. */
const MAX_PAGES = 20;

/** Every page of a report (up to MAX_PAGES): the first answer with all rows. */
async function readAll(req: ConsoleRequest, brand: BrandScope, input: Record<string, unknown>): Promise<{ answer: Insights; truncated: boolean }> {
  const first = await req.call<Insights>(brand.principal, 'get-insights', { ...input, limit: 500 });
  const rows = [...first.rows];
  let cursor = first.nextCursor;
  for (let n = 1; cursor && n < MAX_PAGES; n++) {
    const next = await req.call<Insights>(brand.principal, 'get-insights', { ...input, limit: 500, cursor });
    rows.push(...next.rows);
    cursor = next.nextCursor;
  }
  return { answer: { ...first, rows, nextCursor: null }, truncated: cursor !== null };
}

const objectId = (r: Row) => r.adId ?? r.adsetId ?? r.campaignId ?? '';
const breakdownValue = (r: Row, b: string | null) => (b ? String((r as unknown as Record<string, unknown>)[b] ?? '') : '');

/**
 * One CSV cell: quoted when it holds a comma, quote or line break; a text a spreadsheet would run as
 * a formula (a campaign named "=HYPERLINK(...)": a leading =, +, -, @, tab or CR, after any leading spaces) is kept as text
 * with a leading apostrophe (OWASP, CSV injection). Numbers are written as they are.
 */
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  // Spreadsheets skip leading spaces before reading a formula: " =HYPERLINK(...)" runs too.
  if (typeof v === 'string' && /^[ \u00a0]*[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The report as CSV: a header line, then one line per row; money in minor units. */
function csvOf(a: Insights, tracker: boolean): string {
  const quote = csvCell;
  const head = [
    'level',
    'id',
    'name',
    ...(a.breakdown ? [a.breakdown] : []),
    'currency',
    'spend_minor_units',
    'impressions',
    'clicks',
    'reach',
    'results',
    'ctr_percent',
    'cpc_minor_units',
    'cpm_minor_units',
    'cost_per_result_minor_units',
  ];
  if (tracker) head.push('revenue_minor_units', 'tracker_conversions', 'profit_minor_units', 'roas');
  const lines = a.rows.map((r) => {
    const cells: unknown[] = [
      a.level,
      objectId(r),
      r.name,
      ...(a.breakdown ? [breakdownValue(r, a.breakdown)] : []),
      a.currency,
      r.spend,
      r.impressions,
      r.clicks,
      r.reach,
      r.results,
      r.ctr,
      r.cpc,
      r.cpm,
      r.costPerResult,
    ];
    // A row the tracker says nothing of (a breakdown by age, country...) leaves these cells empty, never 0.
    if (tracker) cells.push(r.revenue ?? '', r.trackerConversions ?? '', r.profit ?? '', r.revenue === undefined ? '' : r.roas);
    return cells.map(quote).join(',');
  });
  return [head.join(','), ...lines].join('\r\n') + '\r\n';
}

function tableOf(a: Insights, tracker: boolean, truncated: boolean): string {
  const levelWord = LEVELS.find(([v]) => v === a.level)?.[1] ?? a.level;
  const bWord = BREAKDOWNS.find(([v]) => v === a.breakdown)?.[1] ?? a.breakdown;
  const head = [
    levelWord,
    ...(a.breakdown ? [bWord!] : []),
    'Spend',
    'Impressions',
    'Clicks',
    'CTR',
    'CPC',
    'Results',
    'Cost per result',
    ...(tracker ? ['Revenue', 'Profit', 'ROAS'] : []),
  ];
  const numStart = a.breakdown ? 2 : 1;
  const cells = (r: Omit<Row, 'name' | 'reach'>, first: string[]) => [
    ...first,
    money(r.spend, a.currency),
    count(r.impressions),
    count(r.clicks),
    percent(r.ctr),
    money(r.cpc, a.currency),
    count(r.results),
    money(r.costPerResult, a.currency),
    ...(tracker
      ? r.revenue === undefined
        ? ['<span class="muted" title="The tracker reports revenue per campaign and day, not per this breakdown">n/a</span>', '', '']
        : [money(r.revenue, a.currency), money(r.profit ?? 0, a.currency), ratio(r.roas)]
      : []),
  ];
  const body = a.rows.map(
    (r) =>
      `<tr>${cells(r, [esc(r.name ?? objectId(r)), ...(a.breakdown ? [esc(breakdownValue(r, a.breakdown))] : [])])
        .map((c, i) => `<td${i >= numStart ? ' class="num"' : ''}>${c}</td>`)
        .join('')}</tr>`,
  );
  const total = `<tr class="total">${cells(a.totals, ['Total', ...(a.breakdown ? [''] : [])])
    .map((c, i) => `<td${i >= numStart ? ' class="num"' : ''}>${c}</td>`)
    .join('')}</tr>`;
  return `${scrollBox(
    `<table id="report"><caption>${esc(levelWord)} rows, ${esc(a.period.since)} to ${esc(a.period.until)} (${esc(a.timezone)}), in ${esc(a.currency)}</caption>
<thead><tr>${head.map((h, i) => `<th scope="col"${i >= numStart ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${body.join('\n')}${!a.rows.length ? `<tr><td colspan="${head.length}">No ${esc(levelWord.toLowerCase())} spent in this period.</td></tr>` : ''}${total}</tbody></table>`,
    'Report rows',
  )}
${truncated ? `<p class="muted">Only the first ${MAX_PAGES * 500} rows are shown; narrow the period or the level.</p>` : ''}`;
}

/**
 * The chart's days: every day of the period, a day without delivery at zero (a lifetime report
 * starts at its first day with data). Spend and tracker revenue per day come from the report by day
 * at campaign level (get-insights with breakdown=day, whose rows carry each day's revenue), summed
 * over the campaigns; a day's ROAS is its revenue over its spend.
 */
async function chartPoints(req: ConsoleRequest, brand: BrandScope, input: Record<string, unknown>, a: Insights, lifetime: boolean): Promise<DayPoint[]> {
  const daily = a.breakdown === 'day' && a.level === 'campaign' ? a : (await readAll(req, brand, { ...input, level: 'campaign', breakdown: 'day' })).answer;
  const tracker = daily.totals.revenue !== undefined;
  const byDay = new Map<string, { spend: number; revenue: number }>();
  for (const r of daily.rows) {
    if (!r.day) continue;
    const into = byDay.get(r.day) ?? { spend: 0, revenue: 0 };
    into.spend += r.spend;
    into.revenue += r.revenue ?? 0;
    byDay.set(r.day, into);
  }
  const withData = [...byDay.keys()].sort();
  const days = datesBetween(lifetime && withData.length ? withData[0] : a.period.since, a.period.until);
  return days.map((day) => {
    const d = byDay.get(day) ?? { spend: 0, revenue: 0 };
    if (!tracker) return { day, spend: d.spend };
    return { day, spend: d.spend, revenue: d.revenue, roas: d.spend > 0 ? Math.round((d.revenue / d.spend) * 10_000) / 10_000 : null };
  });
}

const FIELD_LABELS: Record<string, string> = { accountId: 'Account', level: 'Level', datePreset: 'Period', since: 'From', until: 'To', breakdown: 'Breakdown' };

export async function reportsPage(req: ConsoleRequest, brand: BrandScope, query: Record<string, unknown>): Promise<Page | Download> {
  const base = `/console/brands/${brand.id}`;
  const q = {
    accountId: one(query.accountId) || brand.accounts[0]?.accountId || '',
    level: one(query.level) || 'campaign',
    datePreset: one(query.datePreset),
    since: one(query.since),
    until: one(query.until),
    breakdown: one(query.breakdown),
  };
  // Dates typed in From and To win over the Period menu (which still shows its choice); no period at
  // all is the operation's default (last 7 days), shown chosen.
  if (q.since || q.until) q.datePreset = '';
  else if (!q.datePreset) q.datePreset = 'last_7d';
  const input: Record<string, unknown> = { brandId: brand.id };
  for (const [k, v] of Object.entries(q)) if (v) input[k] = v;

  const form = `<form method="get" class="query" action="${base}/reports">
${select({ id: 'accountId', name: 'accountId', label: 'Account', value: q.accountId, options: brand.accounts.map((a) => [a.accountId, `${a.name ?? a.accountId} (${a.currency})`] as const) })}
${select({ id: 'level', name: 'level', label: 'Level', value: q.level, options: LEVELS })}
${select({ id: 'datePreset', name: 'datePreset', label: 'Period', value: q.datePreset, options: PRESETS })}
<div class="field"><label for="since">From</label><input type="date" id="since" name="since" value="${esc(q.since)}"></div>
<div class="field"><label for="until">To</label><input type="date" id="until" name="until" value="${esc(q.until)}"></div>
${select({ id: 'breakdown', name: 'breakdown', label: 'Breakdown', value: q.breakdown, options: BREAKDOWNS })}
<button type="submit">Show report</button></form>`;
  const intro = `<h1>Reports</h1><p class="lead">Spend and results of an ad account of ${esc(brand.name)}, in the account's currency and time zone; with a connected tracker, revenue, profit and ROAS.</p>`;
  if (!brand.accounts.length) {
    return {
      title: 'Reports',
      body: `${intro}<p class="empty">This brand has no ad account yet, so there is nothing to report. An owner or admin connects one first.</p>`,
    };
  }
  let table: { answer: Insights; truncated: boolean };
  try {
    table = await readAll(req, brand, input);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'validation_failed') throw err;
    const issues = Array.isArray(err.details) ? (err.details as FieldIssue[]) : [];
    if (one(query.format) === 'csv') throw err;
    const list = issues.length
      ? `<ul>${issues.map((i) => `<li><strong>${esc(FIELD_LABELS[i.field] ?? i.field)}</strong> ${esc(i.message)}</li>`).join('')}</ul>`
      : '';
    return {
      title: 'Reports',
      status: 400,
      body: `${intro}<div class="error" role="alert" id="report-error"><strong>The report could not be read:</strong> ${esc(err.message)}${list}</div>${form}`,
    };
  }
  const a = table.answer;
  const tracker = a.totals.revenue !== undefined;
  if (one(query.format) === 'csv') {
    return {
      download: { contentType: 'text/csv; charset=utf-8', fileName: `report-${a.accountId}-${a.period.since}-${a.period.until}.csv`, body: csvOf(a, tracker) },
    };
  }
  const points = await chartPoints(req, brand, input, a, one(query.datePreset) === 'maximum');
  const before = a.totals.revenueBeforeLaunch
    ? `<p class="muted" id="before-launch">Before launch: the tracker also dates ${money(a.totals.revenueBeforeLaunch, a.currency)} of revenue before these campaigns' first day on the platform. It is not in the revenue, profit or ROAS above.</p>`
    : '';
  const csvLink = `${base}/reports?${new URLSearchParams({ ...Object.fromEntries(Object.entries(q).filter(([, v]) => v)), format: 'csv' })}`;
  const body = `${intro}${form}
${a.trackerError ? `<div class="error" role="note">Tracker revenue is missing: ${esc(a.trackerError)}</div>` : ''}
<h2>Spend per day</h2>${spendChart(points, a.currency, { spend: a.totals.spend, ...(tracker ? { revenue: a.totals.revenue ?? 0, roas: a.totals.roas ?? null } : {}) })}
<h2>Rows</h2>${tableOf(a, tracker, table.truncated)}${before}
<p><a href="${esc(csvLink)}" id="download-csv" download>Download CSV</a> <span class="muted">(the same rows, money in minor units)</span></p>`;
  return { title: 'Reports', body };
}
