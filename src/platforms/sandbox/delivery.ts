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
const FNV_OFFSET = 0x811c9dc5;
const HOUR_TEXT = Array.from({ length: 24 }, (_, h) => String(h));

/** FNV-1a of `text` continued from `h` (the offset basis to start). */
function fnv(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** The first `into.length` numbers (at most 6) of the mulberry32 stream seeded by hash `h`. */
function drawInto(into: Float64Array | number[], h: number): void {
  let state = h >>> 0;
  for (let i = 0; i < into.length; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    into[i] = ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  }
}

function uniforms(seed: string): number[] {
  const out = new Array<number>(6).fill(0);
  drawInto(out, fnv(FNV_OFFSET, seed));
  return out;
}

/**
 * Splits `value` into parts proportional to `weights`, exactly: the parts are whole numbers that
 * add up to `value` (cumulative rounding), so a breakdown always sums to the unbroken figure.
 */
export function splitExactly(value: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const out: number[] = [];
  let cumulative = 0;
  let before = 0;
  for (let i = 0; i < weights.length; i++) {
    cumulative += weights[i];
    const upTo = i === weights.length - 1 ? value : Math.floor((value * cumulative) / sum);
    out.push(upTo - before);
    before = upTo;
  }
  return out;
}

/** `n` stable weights in [0.2, 1.2) from a seed (how an object's audience divides among ages, genders...). */
export function weightsOf(seed: string, n: number): number[] {
  const out: number[] = [];
  for (let k = 0; out.length < n; k++) out.push(...uniforms(`${seed}|${k}`).map((u) => 0.2 + u));
  return out.slice(0, n);
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

/** Delivery of one object on one local date. */
export interface DayDelivery extends Insights {
  date: string;
}

/**
 * Delivery of one object, day by day, over a window (local dates in `timeZone`), counting only hours
 * already over at `now`: one entry per date of the window that delivered (spent or was seen).
 */
export function deliverDaily(object: DeliveringObject, window: DateWindow, timeZone: string, now: number, gates: StatusChange[][] = []): DayDelivery[] {
  const out: DayDelivery[] = [];
  const daily = dailyCents(object.budget);
  if (daily <= 0) return out;
  // Nothing delivers before the object's first status change: skip those days without hashing.
  const born = object.history.length ? object.history[0].at : Infinity;
  const histories = [object.history, ...gates];
  const draws = new Float64Array(5);
  for (const date of datesOf(window)) {
    let spentToday = 0;
    const starts = hourStarts(date, timeZone);
    if (starts[23] + HOUR_MS <= born) continue;
    // A day no status changes during is active in every hour or in none: looked up once.
    const steady = histories.every((h) => !changesWithin(h, starts[0], starts[23]));
    const activeAllDay = steady && histories.every((h) => statusAt(h, starts[0]) === 'ACTIVE');
    if (steady && !activeAllDay) continue;
    // The seed of every hour starts with `<id>|<date>|`: hashed once a day (FNV-1a runs left to right).
    const prefix = fnv(FNV_OFFSET, `${object.id}|${date}|`);
    const day: DayDelivery = { date, spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, revenueMinorUnits: 0 };
    for (let hour = 0; hour < 24; hour++) {
      const start = starts[hour];
      if (start + HOUR_MS > now) break;
      if (!activeAllDay && !histories.every((h) => statusAt(h, start) === 'ACTIVE')) continue;
      drawInto(draws, fnv(prefix, HOUR_TEXT[hour]));
      const pace = draws[0];
      const cpm = draws[1];
      const ctr = draws[2];
      const cvr = draws[3];
      const aov = draws[4];
      const spend = Math.min(daily - spentToday, Math.floor((daily * (0.5 + pace) * 0.9) / 24));
      if (spend <= 0) continue;
      spentToday += spend;
      const impressions = Math.floor((spend * 1000) / (500 + 1000 * cpm));
      const clicks = Math.floor(impressions * (0.005 + 0.02 * ctr));
      const results = object.converts === false ? 0 : Math.floor(clicks * (0.02 + 0.08 * cvr));
      day.spendMinorUnits += spend;
      day.impressions += impressions;
      day.clicks += clicks;
      day.results += results;
      day.revenueMinorUnits += results * Math.floor(2000 + 6000 * aov);
    }
    if (day.spendMinorUnits > 0 || day.impressions > 0) out.push(day);
  }
  return out;
}

const datesCache = new Map<string, string[]>();

/** The dates of a window (cached: every object of a read asks for the same window). */
function datesOf(window: DateWindow): string[] {
  const key = `${window.since}|${window.until}`;
  let dates = datesCache.get(key);
  if (!dates) {
    dates = datesBetween(window.since, window.until);
    if (datesCache.size > 1_000) datesCache.clear();
    datesCache.set(key, dates);
  }
  return dates;
}

/** Whether a status change falls in (from, to]: the hours from `from` to `to` may differ in status. */
function changesWithin(history: StatusChange[], from: number, to: number): boolean {
  for (const change of history) if (change.at > from && change.at <= to) return true;
  return false;
}

/** Reach of `impressions` delivered over `days` days: people see an ad more often the longer it runs (frequency 1.1 on one day, +0.15 a day). */
export function reachOf(impressions: number, days: number): number {
  return days ? Math.floor(impressions / (1.1 + 0.15 * (days - 1))) : 0;
}

/** Delivery of one object over a window (local dates in `timeZone`), counting only hours already over at `now`: the sum of its days. */
export function deliver(object: DeliveringObject, window: DateWindow, timeZone: string, now: number, gates: StatusChange[][] = []): Delivery {
  const total: Delivery = { spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, revenueMinorUnits: 0, reach: 0 };
  let days = 0;
  for (const d of deliverDaily(object, window, timeZone, now, gates)) {
    total.spendMinorUnits += d.spendMinorUnits;
    total.impressions += d.impressions;
    total.clicks += d.clicks;
    total.results += d.results;
    total.revenueMinorUnits += d.revenueMinorUnits;
    if (d.spendMinorUnits > 0) days++;
  }
  total.reach = reachOf(total.impressions, days);
  return total;
}

export { NO_INSIGHTS, addInsights } from '../insights.js';
