// Calendar arithmetic in an ad account's timezone (IANA names), without a date library.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function partsAt(ms: number, timeZone: string): Parts {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out as unknown as Parts;
}

/** Milliseconds the zone is ahead of UTC at instant `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const p = partsAt(ms, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** The local calendar date (YYYY-MM-DD) at instant `ms` in `timeZone`. */
export function localDate(ms: number, timeZone: string): string {
  const p = partsAt(ms, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The UTC instant at which local `date` `hour`:00 begins in `timeZone`. */
export function localHourStart(date: string, hour: number, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const guess = Date.UTC(y, m - 1, d, hour);
  const first = guess - offsetAt(guess, timeZone);
  return guess - offsetAt(first, timeZone);
}

/** `date` moved by `days` calendar days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Day of week of a calendar date, 0 = Sunday. */
export function weekday(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** Inclusive list of dates from `since` to `until`. */
export function datesBetween(since: string, until: string): string[] {
  const out: string[] = [];
  for (let d = since; d <= until; d = addDays(d, 1)) out.push(d);
  return out;
}

const zoneNames = new Map<string, Intl.DateTimeFormat>();

/**
 * Instant `ms` as a person reads it in `timeZone`, the zone named: `2026-11-29 09:05 EST
 * (America/New_York)`; the abbreviation is the one in force at that instant (EDT in summer).
 */
export function localDateTime(ms: number, timeZone: string): string {
  const p = partsAt(ms, timeZone);
  let names = zoneNames.get(timeZone);
  if (!names) {
    names = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'short' });
    zoneNames.set(timeZone, names);
  }
  const short = names.formatToParts(new Date(ms)).find((x) => x.type === 'timeZoneName')?.value;
  const two = (n: number) => String(n).padStart(2, '0');
  const at = `${p.year}-${two(p.month)}-${two(p.day)} ${two(p.hour)}:${two(p.minute)}`;
  return short && short !== timeZone ? `${at} ${short} (${timeZone})` : `${at} (${timeZone})`;
}
