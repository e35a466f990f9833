// Deterministic synthetic delivery for the sandbox: an active object accrues spend, impressions,
// clicks, results and revenue hour by hour, up to its daily budget, from a seed of its id and the
// hour, so the same question always gets the same numbers. Paused hours accrue nothing. An object
// that does not convert (the sandbox's "spends, no results" campaign) gets clicks but no results.

import { datesBetween, localHourStart } from '../../time/zones.js';
import type { Budget, DateWindow, Insights } from '../port.js';

const HOUR_MS = 3_600_000;

/**
 * Uniform numbers in [0, 1) derived from the seed: a 32-bit string hash (FNV-1a) seeding a small
 * PRNG (mulberry32). Not cryptographic, just stable and cheap: the simulator draws one set per
 * object and hour, millions per evaluation cycle at scale.
 */
function uniforms(seed: string): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let state = h >>> 0;
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out.push(((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000);
  }
  return out;
}

export interface StatusChange {
  status: string;
  at: number;
}

export interface DeliveringObject {
  id: string;
  budget: Budget | null;
  /** Status history, oldest first; the object delivers in hours that begin while it is ACTIVE. */
  history: StatusChange[];
  /** False: it spends and gets clicks but no results (default true). */
  converts?: boolean;
}

/** The delivery of one object over a window, with its reach (unique people reached). */
export interface Delivery extends Insights {
  reach: number;
}

const hourStartCache = new Map<string, number[]>();

/** The UTC start of each local hour of `date` in `timeZone` (cached: every object of a zone asks the same). */
function hourStarts(date: string, timeZone: string): number[] {
  const key = `${timeZone}|${date}`;
  let starts = hourStartCache.get(key);
  if (!starts) {
    starts = Array.from({ length: 24 }, (_, hour) => localHourStart(date, hour, timeZone));
    if (hourStartCache.size > 50_000) hourStartCache.clear();
    hourStartCache.set(key, starts);
  }
  return starts;
}

function statusAt(history: StatusChange[], at: number): string | null {
  let current: string | null = null;
  for (const change of history) {
    if (change.at > at) break;
    current = change.status;
  }
  return current;
}

function dailyCents(budget: Budget | null): number {
  if (!budget) return 0;
  return budget.period === 'daily' ? budget.amountMinorUnits : Math.floor(budget.amountMinorUnits / 30);
}

/** Delivery of one object over a window (local dates in `timeZone`), counting only hours already over at `now`. */
export function deliver(object: DeliveringObject, window: DateWindow, timeZone: string, now: number, gates: StatusChange[][] = []): Delivery {
  const total: Delivery = { spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, revenueMinorUnits: 0, reach: 0 };
  const daily = dailyCents(object.budget);
  if (daily <= 0) return total;
  // Nothing delivers before the object's first status change: skip those days without hashing.
  const born = object.history.length ? object.history[0].at : Infinity;
  let days = 0;
  for (const date of datesBetween(window.since, window.until)) {
    let spentToday = 0;
    const starts = hourStarts(date, timeZone);
    if (starts[23] + HOUR_MS <= born) continue;
    for (let hour = 0; hour < 24; hour++) {
      const start = starts[hour];
      if (start + HOUR_MS > now) break;
      const active = statusAt(object.history, start) === 'ACTIVE' && gates.every((g) => statusAt(g, start) === 'ACTIVE');
      if (!active) continue;
      const [pace, cpm, ctr, cvr, aov] = uniforms(`${object.id}|${date}|${hour}`);
      const spend = Math.min(daily - spentToday, Math.floor((daily * (0.5 + pace) * 0.9) / 24));
      if (spend <= 0) continue;
      spentToday += spend;
      const impressions = Math.floor((spend * 1000) / (500 + 1000 * cpm));
      const clicks = Math.floor(impressions * (0.005 + 0.02 * ctr));
      const results = object.converts === false ? 0 : Math.floor(clicks * (0.02 + 0.08 * cvr));
      total.spendMinorUnits += spend;
      total.impressions += impressions;
      total.clicks += clicks;
      total.results += results;
      total.revenueMinorUnits += results * Math.floor(2000 + 6000 * aov);
    }
    if (spentToday > 0) days++;
  }
  // People see an ad more often the longer it runs: frequency 1.1 on one day, rising by 0.15 a day.
  if (days) total.reach = Math.floor(total.impressions / (1.1 + 0.15 * (days - 1)));
  return total;
}

export { NO_INSIGHTS, addInsights } from '../insights.js';
