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
  | { kind: 'ok'; byCampaign: Map<string, CampaignRevenue> }
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
 */
export async function readTrackerRevenue(
  deps: ProfitDeps,
  db: Knex | Knex.Transaction,
  brandId: number,
  account: AdAccount,
  window: DateWindow,
  campaignIds: string[],
): Promise<TrackerRead> {
  const conn = await deps.trackers.connection(db, deps.secrets, brandId);
  if (!conn) return { kind: 'none' };
  let report;
  try {
    report = await deps.trackers
      .adapterFor(conn)
      .revenueReport(conn, { from: window.since, to: window.until, timezone: account.timezone }, [...new Set(campaignIds)]);
  } catch (err) {
    return { kind: 'error', message: `The tracker did not answer: ${(err as Error).message}` };
  }
  const byCampaign = new Map<string, CampaignRevenue>();
  for (const row of report.rows) {
    const revenue = convertMinor(row.revenueMinorUnits, report.currency, account.currency, deps.fxRates);
    if (revenue === null) {
      const missing = deps.fxRates.get(report.currency) ? account.currency : report.currency;
      return { kind: 'error', message: `The tracker reports revenue in ${report.currency}: no exchange rate for ${missing} in FX_RATES.` };
    }
    const into = byCampaign.get(row.sub3) ?? { revenue: 0, conversions: 0 };
    into.revenue += revenue;
    into.conversions += row.conversions;
    byCampaign.set(row.sub3, into);
  }
  return { kind: 'ok', byCampaign };
}
