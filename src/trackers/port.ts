// The click-tracker port: the only way the core talks to a click tracker. Adapters: Keitaro's Admin
// API at the brand's baseUrl, and the built-in simulator for the literal baseUrl `sandbox:`.

import type { Origin } from '../outbound/address-policy.js';

/** A brand's connection, key opened. */
export interface TrackerConnection {
  brandId: number;
  baseUrl: string;
  apiKey: string;
  /** Who gave baseUrl: the bootstrap file (operator, called as given) or the API (caller, the outbound address rule). */
  origin: Origin;
}

export interface TrackerCampaign {
  id: string;
  title: string;
  /** The tracker campaign computes its own cost (Keitaro `cost_auto`): a pushed cost would be overwritten. */
  autoCostUpdate: boolean;
}

/** Local dates (YYYY-MM-DD), both ends inclusive, in `timezone`. */
export interface ReportRange {
  from: string;
  to: string;
  timezone: string;
}

/** Clicks of one tracker campaign, for one value of sub3 and of the campaign-id click parameter. */
export interface ClickRow {
  trackerCampaignId: string;
  trackerCampaignName: string;
  /** `sub_id_3`: the ad platform campaign id the ad's URL tags carried; null when absent. */
  sub3: string | null;
  /** The fallback click parameter `tracker_campaign_id` (Keitaro's `ad_campaign_id`); null when absent. */
  campaignIdParam: string | null;
  clicks: number;
  revenueMinorUnits: number;
}

/** One `update_costs` call: sets (never adds) the cost of the range, optionally only for clicks with that sub3. */
export interface CostUpdate {
  startDate: string;
  endDate: string;
  /** Decimal string in `currency`, converted exactly from minor units. */
  cost: string;
  currency: string;
  timezone: string;
  sub3: string | null;
}

/** Cost the tracker holds for one campaign and sub_id_3 value (null: clicks without sub3) over a range. */
export interface CostRow {
  trackerCampaignId: string;
  sub3: string | null;
  /** Decimal string as the tracker reports it. */
  cost: string;
}

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

export interface TrackerAdapter {
  listCampaigns(conn: TrackerConnection): Promise<TrackerCampaign[]>;
  clickReport(conn: TrackerConnection, range: ReportRange): Promise<ClickRow[]>;
  updateCosts(conn: TrackerConnection, trackerCampaignId: string, update: CostUpdate): Promise<void>;
  /** The cost the tracker holds per campaign and sub_id_3 over the range (read back after a final push). */
  costReport(conn: TrackerConnection, range: ReportRange): Promise<CostRow[]>;
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
