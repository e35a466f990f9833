// TikTok's minimum budgets, per currency (live-platforms.md, TikTok "Minimum budgets"). TikTok Help
// "About budgets" gives an ad group's daily minimum as USD 20 and a campaign's as USD 50; the
// AdgroupCreateBody `budget` field points to TikTok's "Currency - Daily budget value range" table, whose
// floors are fixed per currency, not conversions of USD 20 (EUR 20, GBP 15, JPY 2,500, CAD 25, AUD 30 per
// ad group a day, as the amekala ads-mcp validity matrix copies that table). Only a currency missing here
// falls back to the USD amount converted with FX_RATES, and the message then says so.

import type { FxRates } from '../../money/fx-rates.js';
import { usdMinimumIn } from './rules.js';

/** An ad group's daily floor per currency, in its minor units. */
export const ADGROUP_DAILY_FLOORS: Readonly<Record<string, number>> = { USD: 2000, EUR: 2000, GBP: 1500, JPY: 2500, CAD: 2500, AUD: 3000 };
/** A campaign's daily floor per currency, in its minor units (only USD is published here; others convert). */
export const CAMPAIGN_DAILY_FLOORS: Readonly<Record<string, number>> = { USD: 5000 };

export const MIN_ADGROUP_USD = 20;
export const MIN_CAMPAIGN_USD = 50;

/** One floor: its amount in the account's minor units, and whether it is USD converted at the FX_RATES rate. */
export interface Floor {
  amount: number;
  converted: boolean;
}

/** TikTok's floors in `currency`: the table's, else the USD amounts at the FX_RATES rate; null where neither is known. */
export function tiktokFloors(currency: string, rates: FxRates): { adSet: Floor | null; campaign: Floor | null } {
  const floor = (table: Readonly<Record<string, number>>, usd: number): Floor | null => {
    if (table[currency] !== undefined) return { amount: table[currency], converted: false };
    const amount = usdMinimumIn(usd, currency, rates);
    return amount === null ? null : { amount, converted: true };
  };
  return { adSet: floor(ADGROUP_DAILY_FLOORS, MIN_ADGROUP_USD), campaign: floor(CAMPAIGN_DAILY_FLOORS, MIN_CAMPAIGN_USD) };
}

/** Where a floor of `currency` comes from, in a message's words: its currency's row, or USD `usd` converted. */
export function floorOrigin(floor: Floor, usd: number, currency: string): string {
  return floor.converted
    ? `USD ${usd} at the FX_RATES rate: ${currency} is not in TikTok's currency table as the service keeps it`
    : `TikTok's ${currency} floor`;
}
