// ISO 4217 currencies and the exponent of each one's minor unit (USD 2, JPY 0, KWD 3), read from
// the maintained ISO list in the `currency-codes` package. Not Intl: its digits differ from ISO
// for IQD, HUF, COP and others, and money must follow the standard the ad platforms use.

import { data } from 'currency-codes';

const EXPONENTS: ReadonlyMap<string, number> = new Map(data.filter((c) => Number.isInteger(c.digits) && c.digits >= 0).map((c) => [c.code, c.digits]));

/** The minor-unit exponent of an ISO 4217 code (2 for USD, 0 for JPY, 3 for KWD), or null for an unknown code. */
export function exponentOf(currency: string): number | null {
  return EXPONENTS.get(currency) ?? null;
}

/** True for an upper-case ISO 4217 code with a minor unit. */
export function isCurrency(currency: string): boolean {
  return EXPONENTS.has(currency);
}
