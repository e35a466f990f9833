// The click-tracker port: the only way the core talks to a click tracker. Adapters: Keitaro's Admin
// API at the brand's baseUrl, and the built-in simulator for the literal baseUrl `sandbox:`.

import type {
  ClickRow,
  CostRow,
  CostUpdate,
  ReportRange,
  RevenueReport,
  TrackerAdapter,
  TrackerCampaign,
  TrackerConnection,
} from '../catalogue/tracker-port.js';

export type { ClickRow, CostRow, CostUpdate, ReportRange, RevenueReport, TrackerAdapter, TrackerCampaign, TrackerConnection };

/** `address_refused`: the outbound address rule refused baseUrl; nothing was sent. */
export type TrackerErrorKind = 'unauthorized' | 'refused' | 'throttled' | 'transient' | 'invalid_request' | 'not_found' | 'address_refused';

/** The closed set of failures a tracker adapter reports. */
export class TrackerError extends Error {
  constructor(
    readonly kind: TrackerErrorKind,
    message: string,
    readonly extra: { status?: number; retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'TrackerError';
  }
}

/** Digits after the decimal point of a currency (ISO 4217 minor unit): USD 2, JPY 0, KWD 3. */
export function currencyExponent(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Minor units as an exact decimal string in the currency: 12345 USD → "123.45", 500 JPY → "500". */
export function decimalCost(minorUnits: number, currency: string): string {
  const exp = currencyExponent(currency);
  const digits = String(Math.abs(Math.trunc(minorUnits))).padStart(exp + 1, '0');
  const sign = minorUnits < 0 ? '-' : '';
  return exp === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/** A decimal money string to integer minor units of the currency, without floating-point drift. */
export function minorUnits(value: unknown, currency: string): number {
  const exp = currencyExponent(currency);
  const text = typeof value === 'number' ? value.toFixed(exp) : String(value ?? '0');
  const m = /^(-?)(\d*)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return 0;
  const frac = (m[3] ?? '').padEnd(exp, '0').slice(0, exp);
  const n = Number(`${m[2] || '0'}${frac}`);
  return m[1] ? -n : n;
}
