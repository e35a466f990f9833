// The metrics a rule can judge, one entry each: how it is computed from an object's delivery over a
// window, its unit, and whether it is money (then a rule's `value` is in minor units). Adding a
// metric (e.g. a click-tracker one) is one entry here and one enum value in the rule schema.

import type { ObjectInsights } from '../platforms/port.js';

/** An object's delivery over a window and, for a campaign judged on tracker metrics, what the click tracker says of it. */
export interface MetricInput extends ObjectInsights {
  /** Revenue (minor units of the account currency) and conversions from the tracker over the same window. */
  tracked?: { revenue: number; conversions: number };
}

export interface MetricDefinition {
  /** Unit shown to people and models. */
  unit: 'minor_units' | 'count' | 'percent' | 'ratio';
  description: string;
  /** Read from the brand's click tracker (campaign level only; a tracker must be connected). */
  tracker?: true;
  /** The value over one window; null when undefined (a ratio over zero, no tracker figures), and then no condition on it holds. */
  read(delivery: MetricInput): number | null;
}

const ratio = (top: number, bottom: number, scale = 1): number | null => (bottom > 0 ? Math.round(((top * scale) / bottom) * 10_000) / 10_000 : null);

export const METRICS = {
  spend: { unit: 'minor_units', description: 'amount spent, in minor units of the account currency (cents)', read: (d) => d.spendMinorUnits },
  impressions: { unit: 'count', description: 'times the ads were shown', read: (d) => d.impressions },
  clicks: { unit: 'count', description: 'clicks', read: (d) => d.clicks },
  ctr: {
    unit: 'percent',
    description: 'click-through rate in percent (1.5 = 1.5 %): clicks / impressions × 100',
    read: (d) => ratio(d.clicks, d.impressions, 100),
  },
  cpc: { unit: 'minor_units', description: 'cost per click in minor units: spend / clicks', read: (d) => ratio(d.spendMinorUnits, d.clicks) },
  cpm: { unit: 'minor_units', description: 'cost per 1,000 impressions in minor units', read: (d) => ratio(d.spendMinorUnits, d.impressions, 1000) },
  results: { unit: 'count', description: 'results (purchases and leads)', read: (d) => d.results },
  costPerResult: {
    unit: 'minor_units',
    description: 'cost per result in minor units: spend / results (undefined with no results; use results for "no results")',
    read: (d) => ratio(d.spendMinorUnits, d.results),
  },
  frequency: { unit: 'ratio', description: 'average times each person saw the ads: impressions / reach', read: (d) => ratio(d.impressions, d.reach) },
  revenue: {
    unit: 'minor_units',
    tracker: true,
    description: "the click tracker's revenue, in minor units of the account currency",
    read: (d) => d.tracked?.revenue ?? null,
  },
  profit: {
    unit: 'minor_units',
    tracker: true,
    description: "the tracker's revenue minus spend, in minor units",
    read: (d) => (d.tracked ? d.tracked.revenue - d.spendMinorUnits : null),
  },
  roas: {
    unit: 'ratio',
    tracker: true,
    description: "return on ad spend: the tracker's revenue / spend (2 = revenue twice the spend)",
    read: (d) => (d.tracked ? ratio(d.tracked.revenue, d.spendMinorUnits) : null),
  },
  trackerConversions: { unit: 'count', tracker: true, description: 'conversions the click tracker counted', read: (d) => d.tracked?.conversions ?? null },
} satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

/** The metrics read from the click tracker (revenue, profit, roas, trackerConversions). */
export const TRACKER_METRICS: ReadonlySet<MetricName> = new Set((Object.keys(METRICS) as MetricName[]).filter((m) => (METRICS[m] as MetricDefinition).tracker));

export type Operator = 'gt' | 'gte' | 'lt' | 'lte';

/** Whether `actual` compares to `value` as `operator` says; an undefined metric never holds. */
export function holds(actual: number | null, operator: Operator, value: number): boolean {
  if (actual === null) return false;
  switch (operator) {
    case 'gt':
      return actual > value;
    case 'gte':
      return actual >= value;
    case 'lt':
      return actual < value;
    case 'lte':
      return actual <= value;
  }
}
