// Revenue from the brand's click tracker for ad platform campaigns: one report request per read
// (grouped by sub_id_3, conversions and revenue, the period in the ad account's time zone), turned
// into the account's currency with FX_RATES. Used by get-insights (a report's campaign rows and
// totals) and by the automation engine (conditions on revenue, profit, roas, trackerConversions).

import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import type { TrackerService } from '../catalogue/tracker-port.js';
import type { FxRates } from '../money/fx-rates.js';
import { exponentOf } from '../money/currencies.js';
import type { AdAccount, DateWindow } from '../platforms/port.js';

/** What the tracker says of one campaign, in the ad account's minor units. */
export interface CampaignRevenue {
  revenue: number;
  conversions: number;
}

type TrackerRead =
  /** The brand has no tracker connected: no profit figures at all. */
  | { kind: 'none' }
  | {
      kind: 'ok';
      /** Each campaign's revenue from its first day on (the whole window where its first day is not known). */
      byCampaign: Map<string, CampaignRevenue>;
      /** Per campaign and day (YYYY-MM-DD), from each campaign's first day on; only when read by day. */
      byDay: Map<string, Map<string, CampaignRevenue>> | null;
      /** Revenue the tracker dates before its campaign's first day: shown apart, never in ROAS. */
      beforeLaunch: number;
    }
  /** The tracker did not answer (or its currency cannot be converted): why. */
  | { kind: 'error'; message: string };

export interface ProfitDeps {
  trackers: TrackerService;
  secrets: SecretBox;
  fxRates: FxRates;
}

const pow10 = (n: number) => 10n ** BigInt(n);

/**
 * `amount` minor units of `from` in minor units of `to`, through US dollars at the FX_RATES rates,
 * rounded half up, exactly (BigInt over the rates as written); null when a rate is missing.
 */
function convertMinor(amount: number, from: string, to: string, rates: FxRates): number | null {
  if (from === to) return amount;
  const a = rates.get(from);
  const b = rates.get(to);
  const ea = exponentOf(from);
  const eb = exponentOf(to);
  if (!a || !b || ea === null || eb === null) return null;
  // amount / 10^ea * (a.units / 10^a.scale) USD = x / 10^eb * (b.units / 10^b.scale)
  const numerator = BigInt(amount) * a.units * pow10(eb + b.scale);
  const denominator = pow10(ea + a.scale) * b.units;
  const sign = numerator < 0n ? -1n : 1n;
  const abs = numerator * sign;
  return Number(((abs * 2n + denominator) / (2n * denominator)) * sign);
}

/**
 * Conversions and revenue of `campaignIds` over `window` from the brand's tracker, in one report
 * request; `none` when no tracker is connected, `error` (with the reason) when it does not answer.
 * A campaign's revenue counts from `firstDays` (its first day on the platform, in the account's time
 * zone): what the tracker dates before it (a reused sub_id_3, clicks on a link shared before the ad
 * ran) is summed apart in `beforeLaunch`, so a period's ROAS is revenue over spend of the same days
 * and a day already reported does not change when a campaign is published later. The report is read
 * by day (`byDay`, or when a campaign started inside the window); otherwise by campaign alone.
 */
export async function readTrackerRevenue(
  deps: ProfitDeps,
  db: Knex | Knex.Transaction,
  brandId: number,
  account: AdAccount,
  window: DateWindow,
  campaignIds: string[],
  opts: { byDay?: boolean; firstDays?: Map<string, string> } = {},
): Promise<TrackerRead> {
  const firstDays = opts.firstDays ?? new Map<string, string>();
  const byDay = opts.byDay === true || campaignIds.some((id) => (firstDays.get(id) ?? '') > window.since);
  const conn = await deps.trackers.connection(db, deps.secrets, brandId);
  if (!conn) return { kind: 'none' };
  let report;
  try {
    report = await deps.trackers
      .adapterFor(conn)
      .revenueReport(conn, { from: window.since, to: window.until, timezone: account.timezone }, [...new Set(campaignIds)], { byDay });
  } catch (err) {
    return { kind: 'error', message: `The tracker did not answer: ${(err as Error).message}` };
  }
  const byCampaign = new Map<string, CampaignRevenue>();
  const days = byDay ? new Map<string, Map<string, CampaignRevenue>>() : null;
  let beforeLaunch = 0;
  const add = (map: Map<string, CampaignRevenue>, key: string, revenue: number, conversions: number) => {
    const into = map.get(key) ?? { revenue: 0, conversions: 0 };
    into.revenue += revenue;
    into.conversions += conversions;
    map.set(key, into);
  };
  for (const row of report.rows) {
    const revenue = convertMinor(row.revenueMinorUnits, report.currency, account.currency, deps.fxRates);
    if (revenue === null) {
      const missing = deps.fxRates.get(report.currency) ? account.currency : report.currency;
      return { kind: 'error', message: `The tracker reports revenue in ${report.currency}: no exchange rate for ${missing} in FX_RATES.` };
    }
    const first = firstDays.get(row.sub3);
    if (row.day !== undefined && first !== undefined && row.day < first) {
      beforeLaunch += revenue;
      continue;
    }
    add(byCampaign, row.sub3, revenue, row.conversions);
    if (days && row.day !== undefined) {
      const campaignDays = days.get(row.sub3) ?? new Map<string, CampaignRevenue>();
      add(campaignDays, row.day, revenue, row.conversions);
      days.set(row.sub3, campaignDays);
    }
  }
  return { kind: 'ok', byCampaign, byDay: days, beforeLaunch };
}
