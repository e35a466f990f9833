// The figures of a performance report: money in minor units (rounded half up, null over a zero
// divisor), ctr and roas with 4 decimals, and totals derived from the sums of every row.

import type { ReportRow } from '../platforms/port.js';
import type { CampaignRevenue } from './profit.js';

/** `top / bottom` rounded half up to a whole number (both non-negative integers); null when bottom is 0. */
function divideHalfUp(top: number, bottom: number): number | null {
  if (bottom <= 0) return null;
  return Math.floor((2 * top + bottom) / (2 * bottom));
}

/** `top / bottom × scale` with 4 decimals; null when bottom is 0. */
function ratio4(top: number, bottom: number, scale = 1): number | null {
  return bottom > 0 ? Math.round(((top * scale) / bottom) * 10_000) / 10_000 : null;
}

export interface Sums {
  spend: number;
  impressions: number;
  clicks: number;
  results: number;
}

/** spend, impressions, clicks, reach and results with the ratios derived from them. */
export function figuresOf(s: Sums, reach: number | null) {
  return {
    spend: s.spend,
    impressions: s.impressions,
    clicks: s.clicks,
    reach,
    results: s.results,
    ctr: ratio4(s.clicks, s.impressions, 100),
    cpc: divideHalfUp(s.spend, s.clicks),
    cpm: divideHalfUp(s.spend * 1000, s.impressions),
    costPerResult: divideHalfUp(s.spend, s.results),
  };
}

/** revenue, trackerConversions, profit and roas of `spend` against what the tracker said. */
export function profitOf(spend: number, tracked: CampaignRevenue | undefined) {
  const revenue = tracked?.revenue ?? 0;
  return { revenue, trackerConversions: tracked?.conversions ?? 0, profit: revenue - spend, roas: ratio4(revenue, spend) };
}

/** The sums of every row's additive figures, in one pass. */
export function sumRows(rows: ReportRow[]): Sums {
  const s: Sums = { spend: 0, impressions: 0, clicks: 0, results: 0 };
  for (const r of rows) {
    s.spend += r.spendMinorUnits;
    s.impressions += r.impressions;
    s.clicks += r.clicks;
    s.results += r.results;
  }
  return s;
}
