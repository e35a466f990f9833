// Arithmetic on delivery insights, shared by every adapter.

import type { Insights, ObjectInsights } from './port.js';

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

/** One entry per distinct id of `objectIds`, in order, from rows keyed by object id (zeros where none). */
export function perObject(objectIds: string[], rows: Map<string, Omit<ObjectInsights, 'objectId'>>): ObjectInsights[] {
  return [...new Set(objectIds)].map((objectId) => ({ objectId, ...(rows.get(objectId) ?? { ...NO_INSIGHTS, reach: 0 }) }));
}
