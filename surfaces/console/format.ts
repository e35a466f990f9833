// How the console writes money and times: amounts in the account's currency with its symbol and its
// ISO 4217 minor unit (`$50.00`, `¥14,000`, `€45.00`), times in the account's time zone, named.

import { formatMoney, formatUsdCents } from '../../src/money/convert.js';
import { localDateTime } from '../../src/time/zones.js';
import { esc } from './layout.js';

/** Minor units of `currency` as HTML text; a dash for null. */
export function money(amountMinorUnits: number | null | undefined, currency: string): string {
  return amountMinorUnits === null || amountMinorUnits === undefined ? '<span class="muted">–</span>' : esc(formatMoney(amountMinorUnits, currency));
}

/** US cents counted against a publish ceiling, as HTML text. */
export function usd(cents: number | null | undefined): string {
  return cents === null || cents === undefined ? '<span class="muted">no exchange rate</span>' : esc(formatUsdCents(cents));
}

/** An ISO time in `timeZone`, named, inside a <time> element; a dash for null. */
export function when(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '<span class="muted">–</span>';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return esc(iso);
  return `<time datetime="${esc(new Date(ms).toISOString())}">${esc(localDateTime(ms, timeZone))}</time>`;
}

/** A whole number with thousands separators. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '<span class="muted">–</span>' : n.toLocaleString('en-US');
}

/** A ratio (ROAS) with two decimals, or a dash. */
export function ratio(n: number | null | undefined): string {
  return n === null || n === undefined ? '<span class="muted">–</span>' : n.toFixed(2);
}

/** A percentage (CTR, given in percent) with two decimals, or a dash. */
export function percent(n: number | null | undefined): string {
  return n === null || n === undefined ? '<span class="muted">–</span>' : `${n.toFixed(2)}%`;
}
