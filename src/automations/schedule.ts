// When an automation runs next, in its ad account's time zone: every quarter hour, at the start of
// every local hour, or once a day at `dailyHour` local time (DST days have 23 or 25 hours).

import { addDays, localDate, localHourStart } from '../time/zones.js';
import type { Frequency } from './rule.js';

const QUARTER_MS = 15 * 60 * 1000;

/** The first run time strictly after `now`. */
export function nextRunAfter(frequency: Frequency, dailyHour: number | null, now: number, timeZone: string): number {
  if (frequency === 'every_15_minutes') return (Math.floor(now / QUARTER_MS) + 1) * QUARTER_MS;
  const today = localDate(now, timeZone);
  for (let day = -1; day <= 2; day++) {
    const date = addDays(today, day);
    const hours = frequency === 'daily' ? [dailyHour ?? 0] : Array.from({ length: 24 }, (_, h) => h);
    for (const hour of hours) {
      const at = localHourStart(date, hour, timeZone);
      if (at > now) return at;
    }
  }
  throw new Error(`no next run found for ${frequency} in ${timeZone}`);
}

/** When a new (or re-armed) automation first runs: at once, except a daily one, which waits for its hour. */
export function firstRunAt(frequency: Frequency, dailyHour: number | null, now: number, timeZone: string): number {
  return frequency === 'daily' ? nextRunAfter(frequency, dailyHour, now, timeZone) : now;
}
