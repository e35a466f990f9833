// FX_RATES: the operator's exchange rates, US dollars per one unit of each other currency
// (`EUR=1.08,GBP=1.27,JPY=0.0066`). Each rate is kept exactly as written (digits and a decimal
// scale), so converting never passes through binary floating point. USD is always 1.

import { isCurrency } from './currencies.js';

/** A rate as written: `units / 10^scale` US dollars per unit of the currency. */
export interface Rate {
  units: bigint;
  scale: number;
  text: string;
}

export type FxRates = ReadonlyMap<string, Rate>;

const USD: Rate = { units: 1n, scale: 0, text: '1' };
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Parses FX_RATES; throws an Error naming the bad pair (the server refuses to start with it). */
export function parseFxRates(raw: string | undefined): FxRates {
  const rates = new Map<string, Rate>([['USD', USD]]);
  const text = (raw ?? '').trim();
  if (!text) return rates;
  const seen = new Set<string>();
  for (const pair of text.split(',')) {
    const bad = (why: string) =>
      new Error(`FX_RATES: "${pair.trim()}" ${why}; write CUR=rate pairs separated by commas, the rate in US dollars per unit, e.g. EUR=1.08,JPY=0.0066`);
    const eq = pair.indexOf('=');
    if (eq < 0) throw bad('is not CUR=rate');
    const code = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!isCurrency(code)) throw bad(`names ${code ? `"${code}", which is not` : 'no currency, not'} an ISO 4217 code in capitals`);
    if (seen.has(code)) throw bad(`gives ${code} a second time`);
    seen.add(code);
    const m = DECIMAL.exec(value);
    if (!m) throw bad(`has rate "${value}", which is not a plain decimal number`);
    const fraction = m[2] ?? '';
    const rate: Rate = { units: BigInt(m[1] + fraction), scale: fraction.length, text: value };
    if (rate.units === 0n) throw bad('has a rate of zero');
    if (code === 'USD') {
      if (rate.units !== 10n ** BigInt(rate.scale)) throw bad('gives USD a rate other than 1');
      continue;
    }
    rates.set(code, rate);
  }
  return rates;
}
