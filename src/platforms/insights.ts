// Arithmetic on delivery insights, shared by every adapter.

import type { Insights } from './port.js';

export const NO_INSIGHTS: Insights = Object.freeze({ spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, revenueMinorUnits: 0 });

/** Field-by-field sum of two insight totals (all integers: spend and revenue in minor units). */
export function addInsights(a: Insights, b: Insights): Insights {
  return {
    spendMinorUnits: a.spendMinorUnits + b.spendMinorUnits,
    impressions: a.impressions + b.impressions,
    clicks: a.clicks + b.clicks,
    results: a.results + b.results,
    revenueMinorUnits: a.revenueMinorUnits + b.revenueMinorUnits,
  };
}
