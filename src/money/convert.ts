// Amounts across currencies: an integer in an ad account's minor units is counted against a
// publish ceiling in US cents at the FX_RATES rate, rounded up to the next whole cent. The
// arithmetic is exact (BigInt over the rate as written); nothing goes through binary floats.

import { ServiceError } from '../errors.js';
import { exponentOf } from './currencies.js';
import type { FxRates } from './fx-rates.js';

/** One ad account's part of a call: its amount in its own minor units and the US cents it counts. */
export interface CountedAmount {
  accountId: string;
  currency: string;
  amountMinorUnits: number;
  countedUsdCents: number;
}

/** What one call counts against a ceiling: each ad account's amount in its own currency, and the US cents in total. */
export interface Counted {
  totalUsdCents: number;
  accounts: CountedAmount[];
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** The 503 of a ceiling that cannot be checked because `currency` has no rate. */
export function noRate(currency: string): ServiceError {
  return new ServiceError(
    'unavailable',
    `The ceiling cannot be checked: no exchange rate for ${currency}. An operator must add ${currency} to FX_RATES (US dollars per unit, e.g. ${currency}=0.0066). Nothing was published.`,
    { reason: 'no_exchange_rate', currency },
  );
}

/**
 * `amountMinorUnits` of `currency` in US cents, rounded up; 503 unavailable when FX_RATES has no
 * rate for it (or the currency is not ISO 4217).
 */
export function toUsdCents(amountMinorUnits: number, currency: string, rates: FxRates): number {
  if (!Number.isSafeInteger(amountMinorUnits) || amountMinorUnits < 0) throw new RangeError(`amount ${amountMinorUnits} is not a whole number of minor units`);
  const exponent = exponentOf(currency);
  const rate = rates.get(currency);
  if (exponent === null || !rate) throw noRate(currency);
  // cents = amount / 10^exponent * (units / 10^scale) * 100, rounded up.
  const numerator = BigInt(amountMinorUnits) * rate.units * 100n;
  const denominator = pow10(exponent + rate.scale);
  const cents = (numerator + denominator - 1n) / denominator;
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${amountMinorUnits} ${currency} is too large to count`);
  return Number(cents);
}

/**
 * Counts each ad account's total (amounts in its own minor units) in US cents, each rounded up
 * once per account, never adding amounts of different currencies before converting them.
 */
export function countPerAccount(parts: Array<{ accountId: string; currency: string; amountMinorUnits: number }>, rates: FxRates): Counted {
  const byAccount = new Map<string, { currency: string; amount: number }>();
  for (const p of parts) {
    const entry = byAccount.get(p.accountId) ?? { currency: p.currency, amount: 0 };
    entry.amount += p.amountMinorUnits;
    byAccount.set(p.accountId, entry);
  }
  // Nothing to count needs no rate: an account whose amount is zero counts zero cents.
  const accounts = [...byAccount].map(([accountId, e]) => ({
    accountId,
    currency: e.currency,
    amountMinorUnits: e.amount,
    countedUsdCents: e.amount === 0 ? 0 : toUsdCents(e.amount, e.currency, rates),
  }));
  return { accounts, totalUsdCents: accounts.reduce((s, a) => s + a.countedUsdCents, 0) };
}

function digitsOf(amount: number, exponent: number): string {
  const negative = amount < 0;
  const s = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const whole = s.slice(0, s.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = exponent ? `.${s.slice(s.length - exponent)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** An amount in minor units for a message: `14,000 JPY`, `1.500 KWD`, `50.00 EUR`. */
export function formatMinor(amountMinorUnits: number, currency: string): string {
  return `${digitsOf(amountMinorUnits, exponentOf(currency) ?? 0)} ${currency}`;
}

const symbols = new Map<string, string>();

/** The currency's symbol as people read it in English (`$`, `€`, `¥`, `£`, `CA$`), or null when Intl knows none. */
function symbolOf(currency: string): string | null {
  let symbol = symbols.get(currency);
  if (symbol === undefined) {
    try {
      const part = new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'symbol' })
        .formatToParts(0)
        .find((p) => p.type === 'currency');
      symbol = part && part.value !== currency ? part.value : '';
    } catch {
      symbol = '';
    }
    symbols.set(currency, symbol);
  }
  return symbol || null;
}

/**
 * An amount in minor units as a person reads it, with the currency's symbol and its ISO 4217 minor
 * unit: `$50.00`, `¥14,000`, `€45.00`, `-$1.50`; a currency without a symbol as `1.500 KWD`.
 */
export function formatMoney(amountMinorUnits: number, currency: string): string {
  const symbol = symbolOf(currency);
  if (!symbol) return formatMinor(amountMinorUnits, currency);
  const digits = digitsOf(Math.abs(amountMinorUnits), exponentOf(currency) ?? 0);
  return `${amountMinorUnits < 0 ? '-' : ''}${symbol}${digits}`;
}

/** US cents for a message: `$92.40`. */
export function formatUsdCents(cents: number): string {
  return `$${digitsOf(cents, 2)}`;
}
